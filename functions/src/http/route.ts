/** Registering a route's handler by its name in the route manifest (api/routes.ts), so that its method and path are written once. */
import type { Handler } from 'hono';
import { ROUTES, type OperationId } from '../api/routes.js';
import type { ApiApp, AppEnv } from './app-env.js';

/** A manifest path in Hono's form, as a type too (so `c.req.param('id')` is typed): `/sessions/{id}` → `/sessions/:id`. */
export type HonoPath<Path extends string> = Path extends `${infer Head}{${infer Name}}${infer Tail}` ? `${Head}:${Name}${HonoPath<Tail>}` : Path;

/** `path` in Hono's form. */
export function honoPath<Path extends string>(path: Path): HonoPath<Path> {
  return path.replace(/\{(\w+)\}/g, ':$1') as HonoPath<Path>;
}

/**
 * Registers `handler` for the route the manifest names `operation`, at its method and path.
 *
 * @example
 * route(app, 'getTree', async (c) => c.json(await tree.tree(c.get('owner'), pathSessionId(c))));
 */
export function route<Operation extends OperationId>(
  app: ApiApp,
  operation: Operation,
  handler: Handler<AppEnv, HonoPath<(typeof ROUTES)[Operation]['path']>>,
): void {
  const { method, path } = ROUTES[operation];
  app.on(method, honoPath(path), handler);
}
