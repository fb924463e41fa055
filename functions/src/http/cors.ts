/**
 * The CORS rules: what the app answers browsers with, and what API Gateway and the streaming
 * function's URL answer with too (infra/settings.ts reads these, so this module imports no
 * code). No credentials: the API takes bearer tokens, not cookies.
 */
import type { cors } from 'hono/cors';

/** Request headers a browser may send (`a2a-version`: an A2A client's, on `POST /a2a`); response headers its script may read. */
export const CORS_ALLOW_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'a2a-version'] as const;
export const CORS_EXPOSE_HEADERS = ['retry-after', 'idempotent-replayed'] as const;
/** The methods an actual request may use (a preflight's own OPTIONS needs no listing). */
export const CORS_ALLOW_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** How long a browser may cache a preflight's answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

/** The CORS rules for `origins` (exact origins, or `*` for any). */
export function corsOptions(origins: readonly string[]): Parameters<typeof cors>[0] {
  const any = origins.includes('*');
  return {
    origin: (origin) => (any ? '*' : origins.includes(origin) ? origin : null),
    allowMethods: [...CORS_ALLOW_METHODS],
    allowHeaders: [...CORS_ALLOW_HEADERS],
    exposeHeaders: [...CORS_EXPOSE_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
  };
}
