/**
 * The body-size limit of every request: over `maxSize` bytes is refused (413) before the
 * body is read.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from './app-env.js';
import { payloadTooLarge } from '../errors.js';

/**
 * A request that states its length (and is not chunked) is judged by that header alone, as
 * hono's `bodyLimit` judges it; a GET or HEAD has no body to judge. Only the rest — a chunked
 * body — goes through `bodyLimit`, which reads it. Asking hono's middleware first would cost
 * every request its fast path: it looks at `c.req.raw.body`, which makes node-server build a
 * web `Request` and its stream, where the route would otherwise read the body straight off
 * the socket. The Node HTTP parser holds a body to its `content-length`, and the routes
 * check the size they read again (`readBytes`).
 */
export function bodyLimitOf(maxSize: number): MiddlewareHandler<AppEnv> {
  const chunked = bodyLimit({
    maxSize,
    onError: () => {
      throw payloadTooLarge(maxSize);
    },
  });
  return (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return chunked(c, next);
    if (parseInt(length, 10) > maxSize) throw payloadTooLarge(maxSize);
    return next();
  };
}
