/**
 * Every route of the HTTP API, one line each: the one list the rest is derived from. The app
 * registers each handler by its operation id (`route(app, 'getTree', …)`, http/route.ts), the
 * OpenAPI document takes its paths and methods from here (route-table.ts adds the words and
 * schemas), the auth middleware its public routes, API Gateway its routes (infra/api.ts, through
 * `@panto/functions/deployment`), and the page its calls (web/src/api/operations.gen.ts,
 * generated from the OpenAPI document). A new route is a line here, its handler, and its
 * entry in route-table.ts — which the type checker asks for.
 *
 * - `public`: answered without a bearer token (and outside the JWT authorizer on API Gateway);
 * - `streamed`: answers a stream for minutes, so on AWS it is served by the streaming function's
 *   URL (infra/stream.ts) instead of API Gateway, whose integrations stop at 30 s.
 *
 * This module imports nothing: a cold start and the deployment read it without loading any code.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteLine {
  method: HttpMethod;
  /** In OpenAPI's (and API Gateway's) form: `/sessions/{id}`. */
  path: `/${string}`;
  public?: true;
  streamed?: true;
}

export const ROUTES = {
  getHealth: { method: 'GET', path: '/health', public: true },
  getOpenAPI: { method: 'GET', path: '/openapi.json', public: true },
  listModels: { method: 'GET', path: '/models' },
  getUsage: { method: 'GET', path: '/usage' },
  createSession: { method: 'POST', path: '/sessions' },
  listSessions: { method: 'GET', path: '/sessions' },
  getSession: { method: 'GET', path: '/sessions/{id}' },
  updateSession: { method: 'PATCH', path: '/sessions/{id}' },
  listEntries: { method: 'GET', path: '/sessions/{id}/entries' },
  getTree: { method: 'GET', path: '/sessions/{id}/tree' },
  switchLeaf: { method: 'PUT', path: '/sessions/{id}/leaf' },
  forkSession: { method: 'POST', path: '/sessions/{id}/fork' },
  listExports: { method: 'GET', path: '/sessions/{id}/exports' },
  importSession: { method: 'POST', path: '/sessions/import' },
  stopTurn: { method: 'POST', path: '/sessions/{id}/stop' },
  followSession: { method: 'GET', path: '/sessions/{id}/events', streamed: true },
  deleteSession: { method: 'DELETE', path: '/sessions/{id}' },
  runTurn: { method: 'POST', path: '/sessions/{id}/messages' },
  streamTurn: { method: 'POST', path: '/sessions/{id}/messages/stream', streamed: true },
  decideApprovals: { method: 'POST', path: '/sessions/{id}/approvals' },
  streamApprovals: { method: 'POST', path: '/sessions/{id}/approvals/stream', streamed: true },
  compactSession: { method: 'POST', path: '/sessions/{id}/compact' },
  exportSession: { method: 'POST', path: '/sessions/{id}/export' },
  chat: { method: 'POST', path: '/chat', streamed: true },
  getChat: { method: 'GET', path: '/chat/{id}' },
  resumeChat: { method: 'GET', path: '/chat/{id}/stream', streamed: true },
  getAgentCard: { method: 'GET', path: '/.well-known/agent-card.json', public: true },
  a2aJsonRpc: { method: 'POST', path: '/a2a', streamed: true },
} as const satisfies { [operationId: string]: RouteLine };

/** A route's name: its OpenAPI `operationId`. */
export type OperationId = keyof typeof ROUTES;

/** `METHOD /path`: how API Gateway names a route (its route key), and how the auth middleware looks one up. */
export function routeKey({ method, path }: RouteLine): string {
  return `${method} ${path}`;
}

/** Every route, with its operation id, in the manifest's order. */
export const ROUTE_LIST: readonly (RouteLine & { operationId: OperationId })[] = Object.entries(ROUTES).map(([operationId, line]) => ({
  operationId: operationId as OperationId,
  ...line,
}));

/** The route keys answered without a token: what the auth middleware checks on every request. */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(ROUTE_LIST.filter((line) => line.public).map(routeKey));
