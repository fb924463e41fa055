/** Reading a request: its session id, its body as JSON or as bytes. */
import { isValidSessionId } from '@panto/aws/service';
import { exceedsJSONDepth, SessionNotFoundError, tooDeepReason } from '@panto/core/agent-kit';
import type { Context } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import { payloadTooLarge, RequestError } from '../errors.js';

/** The `:id` of the path, or `SessionNotFoundError` (404) for one that cannot be an id — answered without a database call. */
export function pathSessionId(c: Context<AppEnv>): string {
  const id = c.req.param('id') ?? '';
  if (!isValidSessionId(id)) throw new SessionNotFoundError(id);
  c.set('sessionId', id);
  return id;
}

/** Decodes UTF-8 strictly: bytes that are not UTF-8 are refused, never turned into U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request body as JSON; `{}` when there is none. Bodies over the limit were refused by
 * the body-limit middleware; the check here covers a request whose length header lied. A
 * body that is not UTF-8 is refused (400 `invalid_encoding`), not stored with U+FFFD in
 * place of its bytes; one nested deeper than `MAX_JSON_DEPTH` is refused (400 `invalid_json`).
 */
export async function readJson(c: Context<AppEnv>, limitBytes: number): Promise<unknown> {
  const bytes = await readBytes(c, limitBytes);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch (error) {
    throw new RequestError(400, 'invalid_encoding', 'the request body is not valid UTF-8', { cause: error });
  }
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new RequestError(400, 'invalid_json', 'the request body is not valid JSON');
  }
  // Validation, the idempotency fingerprint and the answer all serialise the body again.
  if (exceedsJSONDepth(value)) throw new RequestError(400, 'invalid_json', tooDeepReason('the request body'));
  return value;
}

/**
 * The request body's bytes, as sent (the body-limit middleware refused larger bodies; the
 * check here covers a request whose length header lied).
 */
export async function readBytes(c: Context<AppEnv>, limitBytes: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.byteLength > limitBytes) throw payloadTooLarge(limitBytes);
  return bytes;
}
