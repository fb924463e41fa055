/**
 * The routes answered without a bearer token, as `METHOD /path` keys: what the auth
 * middleware checks on every request. Kept apart from the route table (route-table.ts, which
 * marks the same routes `public: true`) so that a cold start does not build the table's
 * schemas — the table is loaded only for `GET /openapi.json`. A test holds the two the same.
 */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(['GET /health', 'GET /openapi.json']);
