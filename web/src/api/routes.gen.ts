/**
 * The API's routes, generated from its route manifest (functions/src/api/routes.ts): do not
 * edit — run `npm run generate:wire` (scripts/generate-wire-types.ts). `streamed`: served on
 * the stream's origin (`streamUrl`), not the API's.
 */
export const ROUTES = {
  getHealth: { method: 'GET', path: '/health', streamed: false },
  getOpenAPI: { method: 'GET', path: '/openapi.json', streamed: false },
  listModels: { method: 'GET', path: '/models', streamed: false },
  getUsage: { method: 'GET', path: '/usage', streamed: false },
  createSession: { method: 'POST', path: '/sessions', streamed: false },
  listSessions: { method: 'GET', path: '/sessions', streamed: false },
  getSession: { method: 'GET', path: '/sessions/{id}', streamed: false },
  updateSession: { method: 'PATCH', path: '/sessions/{id}', streamed: false },
  listEntries: { method: 'GET', path: '/sessions/{id}/entries', streamed: false },
  getTree: { method: 'GET', path: '/sessions/{id}/tree', streamed: false },
  switchLeaf: { method: 'PUT', path: '/sessions/{id}/leaf', streamed: false },
  forkSession: { method: 'POST', path: '/sessions/{id}/fork', streamed: false },
  listExports: { method: 'GET', path: '/sessions/{id}/exports', streamed: false },
  importSession: { method: 'POST', path: '/sessions/import', streamed: false },
  stopTurn: { method: 'POST', path: '/sessions/{id}/stop', streamed: false },
  followSession: { method: 'GET', path: '/sessions/{id}/events', streamed: true },
  deleteSession: { method: 'DELETE', path: '/sessions/{id}', streamed: false },
  runTurn: { method: 'POST', path: '/sessions/{id}/messages', streamed: false },
  streamTurn: { method: 'POST', path: '/sessions/{id}/messages/stream', streamed: true },
  decideApprovals: { method: 'POST', path: '/sessions/{id}/approvals', streamed: false },
  streamApprovals: { method: 'POST', path: '/sessions/{id}/approvals/stream', streamed: true },
  compactSession: { method: 'POST', path: '/sessions/{id}/compact', streamed: false },
  exportSession: { method: 'POST', path: '/sessions/{id}/export', streamed: false },
  chat: { method: 'POST', path: '/chat', streamed: true },
  getChat: { method: 'GET', path: '/chat/{id}', streamed: false },
  resumeChat: { method: 'GET', path: '/chat/{id}/stream', streamed: true },
  getAgentCard: { method: 'GET', path: '/.well-known/agent-card.json', streamed: false },
  a2aJsonRpc: { method: 'POST', path: '/a2a', streamed: true },
} as const;

/** A route's name: its OpenAPI `operationId`. */
export type OperationId = keyof typeof ROUTES;
