/**
 * What the page needs of panto besides useChat: where the API is and the token (from the
 * page's URL), a session to chat in, its messages so far, and the real stop.
 */
import type { UIMessage } from 'ai';

/** What panto puts in an assistant message's metadata (docs/api.md, *The AI SDK's chat protocol*). */
export interface PantoMetadata {
  session_id?: string;
  usage?: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number };
  cost_usd?: number | null;
  stop_reason?: string;
  incomplete?: boolean;
  incomplete_reason?: string;
}

export type PantoMessage = UIMessage<PantoMetadata>;

export interface Panto {
  /** The API's base URL (`…/api` behind the one-origin router, the local stack's root otherwise). */
  base: string;
  token: string;
}

/** `?api=<base URL>` (default: this page's origin) and `#token=<token>` (what `npm start` prints). */
export function pantoFromLocation(location: Location): Panto {
  const api = new URLSearchParams(location.search).get('api') ?? location.origin;
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  return { base: api.replace(/\/$/, ''), token };
}

function call(panto: Panto, method: string, path: string, body?: object): Promise<Response> {
  return fetch(`${panto.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${panto.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function ok(response: Response): Promise<Response> {
  if (!response.ok) throw new Error(await response.text());
  return response;
}

/** A new session (the server's default model): its id is the chat's id. */
export async function createSession(panto: Panto): Promise<string> {
  return ((await (await ok(await call(panto, 'POST', '/sessions', {}))).json()) as { id: string }).id;
}

/** The session as UIMessage[]: useChat's initial messages (a running answer is left out: the resumed stream replays it). */
export async function loadChat(panto: Panto, id: string): Promise<PantoMessage[]> {
  return (await (await ok(await call(panto, 'GET', `/chat/${encodeURIComponent(id)}`))).json()) as PantoMessage[];
}

/** Stops the running turn for real (useChat's `stop()` only drops the connection; the turn goes on). */
export async function stopTurn(panto: Panto, id: string): Promise<void> {
  await call(panto, 'POST', `/sessions/${encodeURIComponent(id)}/stop`, {});
}

/** panto's error code and words, from the error useChat reports (an HTTP error's body, or the stream's error part). */
export function errorText(error: Error): string {
  try {
    const body = JSON.parse(error.message) as { error?: { code?: string; message?: string } };
    if (body.error?.code !== undefined) return `${body.error.code}: ${body.error.message ?? ''}`;
  } catch {
    // Not panto's JSON (a network failure): its own words.
  }
  return error.message;
}
