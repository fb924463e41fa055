/** What every route module shares: the app's environment, its dependencies, and reading a request. */
import { isValidSessionId } from '@panto/aws';
import { exceedsJSONDepth, SessionNotFoundError, tooDeepReason, type Usage } from '@panto/core';
import type { Context, Hono } from 'hono';
import type { ServiceLimits } from './config.js';
import { payloadTooLarge, RequestError, type HttpError } from './errors.js';
import type { Idempotent } from './idempotency.js';
import type { OfferedModels } from './models.js';
import type { ProviderResolver } from './providers.js';
import type { SessionService } from './session-service.js';

/** What the app uses of a Node server's response (`@hono/node-server` passes it as `outgoing`). */
export interface NodeResponse {
  /** Drops the connection at once, with whatever the client has not read yet. */
  destroy(): unknown;
  /** Whether the client has been sent the whole response. */
  readonly writableFinished: boolean;
}

/** What the app reads from its runtime: the Lambda event, when there is one. */
export interface AppEnv {
  /** `event`: the Lambda event; `outgoing`: a Node server's response (its connection), in the local stack. */
  Bindings: { event?: unknown; outgoing?: NodeResponse };
  Variables: {
    owner: string;
    /** What the Idempotency-Key did for this request, when it had one. */
    idempotency?: 'claimed' | 'replayed';
    // What the request log records (telemetry.ts); set by the routes.
    sessionId?: string;
    turn?: true;
    usage?: Usage;
    errorCode?: string;
    /** For a streamed turn: settles when its stream has ended (the log waits for it). */
    streamed?: Promise<void>;
  };
}

export type App = Hono<AppEnv>;

/** What a route module is given. */
export interface RouteDeps {
  sessions: SessionService;
  providers: ProviderResolver;
  limits: ServiceLimits;
  /** Logs a failure that does not reach the caller as a status: an outage in one line, a defect with its cause. */
  report(failure: HttpError, what: string, error: unknown): void;
  /** Logs a backend outage in one short line. Must not throw. */
  logOutage(message: string): void;
  /** Runs a write at most once per `Idempotency-Key` (see idempotency.ts). */
  idempotent: Idempotent;
  /** What `GET /models` answers. Must not throw once the app serves (the configuration was checked at start). */
  models(): OfferedModels;
}

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

/** The `Retry-After` header a failure answers with (every 503 has one). */
export function retryAfter(failure: HttpError): Record<string, string> {
  return failure.retryAfterSeconds === null ? {} : { 'retry-after': String(failure.retryAfterSeconds) };
}
