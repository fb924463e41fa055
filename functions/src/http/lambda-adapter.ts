/**
 * Hono's AWS Lambda adapter, imported here and nowhere else. `hono/aws-lambda` is marked
 * deprecated in favour of `@hono/aws-lambda` (and goes away in Hono 5), which the npm registry
 * did not serve yet (404 on 2026-12-06). When it does, the move is this one import: add the
 * package, pinned, and change the line below; the handlers and the bench take the adapter
 * from here.
 */
export { handle, streamHandle } from 'hono/aws-lambda';
