/**
 * The `Idempotency-Key` header (Stripe's, and the IETF draft's): a client that retries a
 * write with the same key gets the first answer back and nothing is written again. The
 * records live in the sessions table (`DynamoIdempotencyStore` in @panto/aws).
 *
 * - same key, same request (method, path, body): the stored answer, with `Idempotent-Replayed: true`;
 * - same key, another request: 422 `idempotency_key_reused`;
 * - same key while the first is still running: 409 `idempotency_key_in_progress`;
 * - a request that failed with an error status (thrown: 4xx/5xx from `errors.ts`) is not kept,
 *   as with Powertools: its key is freed and a retry runs again. An answer the route returned
 *   itself (a 201, a 200, a turn's 502 with what it stored) is kept.
 */
import { requestFingerprint, type IdempotencyStore } from '@panto/aws/service';
import type { Context } from 'hono';
import { RequestError, toHttpError, type HttpError } from '../errors.js';
import type { AppEnv } from './app-env.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
/** 1 to 255 printable ASCII characters (Stripe allows 255). */
const KEY_RULE = /^[\x21-\x7e]{1,255}$/;

/**
 * Runs `run` at most once per key: `body` is the request's validated body; the key is the
 * `Idempotency-Key` header, else `defaultKey` (A2A's `messageId`, say), else there is none and
 * `run` runs. Contract: `run` answers or throws; called once, or not at all (a replay, a conflict).
 */
export type Idempotent = (c: Context<AppEnv>, body: unknown, run: () => Promise<Response>, defaultKey?: string) => Promise<Response>;

export function idempotency(
  store: IdempotencyStore,
  options: { inProgressMs: number; report: (failure: HttpError, what: string, error: unknown) => void },
): Idempotent {
  return async (c, body, run, defaultKey) => {
    const key = c.req.header(IDEMPOTENCY_KEY_HEADER) ?? defaultKey;
    if (key === undefined) return run();
    if (!KEY_RULE.test(key)) {
      throw new RequestError(400, 'invalid_header', 'Idempotency-Key: 1 to 255 printable ASCII characters', { field: 'Idempotency-Key' });
    }
    const claim = await store.claim({
      owner: c.get('owner'),
      key,
      fingerprint: requestFingerprint(c.req.method, c.req.path, body),
      inProgressMs: options.inProgressMs,
    });
    switch (claim.state) {
      case 'completed':
        c.set('idempotency', 'replayed');
        return new Response(claim.response.body, {
          status: claim.response.status,
          headers: { 'content-type': 'application/json', [IDEMPOTENT_REPLAYED_HEADER]: 'true' },
        });
      case 'in_progress':
        throw new RequestError(409, 'idempotency_key_in_progress', 'a request with this Idempotency-Key is still running; retry later');
      case 'mismatch':
        throw new RequestError(422, 'idempotency_key_reused', 'this Idempotency-Key was used with another request', { field: 'Idempotency-Key' });
      case 'claimed': {
        c.set('idempotency', 'claimed');
        let response: Response;
        try {
          response = await run();
        } catch (error) {
          await store.release(claim).catch((failure: unknown) => options.report(toHttpError(failure), 'freeing an idempotency key', failure));
          throw error;
        }
        try {
          await store.complete(claim, { status: response.status, body: await response.clone().text() });
        } catch (failure) {
          // The answer stands; a retry within the claim's deadline gets 409, after it runs again.
          options.report(toHttpError(failure), 'storing an idempotent answer', failure);
        }
        return response;
      }
      default: {
        const unknown: never = claim;
        throw new TypeError(`unknown claim ${JSON.stringify(unknown)}`);
      }
    }
  };
}
