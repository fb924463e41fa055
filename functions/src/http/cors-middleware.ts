/** The CORS middleware every answer goes through: hono's, with the rules of `cors.ts`. */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from './app-env.js';
import { corsOptions } from './cors.js';

/**
 * Hono's CORS middleware for a browser's request — one with an `Origin` header — and for every
 * preflight (`OPTIONS`). A request without `Origin` was not sent by a browser under CORS, so
 * the CORS headers would be read by nobody: it only gets `Vary: Origin` (when the origins are
 * a list, as hono adds it), so that a cache never hands its answer to a browser. Hono's
 * middleware sets its headers before the route answers, and that turns node-server's answer
 * from a string written at once into a web `Response` whose stream is read back.
 */
export function corsMiddleware(origins: readonly string[]): MiddlewareHandler<AppEnv> {
  const browser = cors(corsOptions(origins));
  const vary = !origins.includes('*');
  return async (c, next) => {
    if (c.req.method === 'OPTIONS' || c.req.header('origin') !== undefined) return browser(c, next);
    await next();
    if (vary) c.header('Vary', 'Origin', { append: true });
  };
}
