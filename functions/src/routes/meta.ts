/**
 * The routes about the service itself, answered without a token: its health and its OpenAPI
 * document. The document — the route table and its response schemas — is loaded by the first
 * `GET /openapi.json`, not at a cold start.
 */
import { outageOf } from '../errors.js';
import type { ApiApp } from '../http/app-env.js';
import { route } from '../http/route.js';
import type { RouteDeps } from './route-deps.js';
import type { JsonObject } from '../api/openapi.js';
import type { HealthJson } from '../api/response-schemas.js';
import { SERVICE_VERSION } from '../version.js';

/** How long `GET /health` waits for the table. */
export const HEALTH_TABLE_TIMEOUT_MS = 2000;

export function metaRoutes(app: ApiApp, { admin, logOutage }: RouteDeps): void {
  route(app, 'getHealth', async (c) => {
    const ping = await admin.ping(HEALTH_TABLE_TIMEOUT_MS);
    if (!ping.ok) {
      const what = outageOf(ping.error) ?? (ping.error instanceof Error ? ping.error.name : String(ping.error));
      logOutage(`health check: the table did not answer: ${what}`);
    }
    const body: HealthJson = { status: ping.ok ? 'ok' : 'degraded', version: SERVICE_VERSION, table: ping.ok ? 'ok' : 'unavailable' };
    return c.json(body, ping.ok ? 200 : 503, { 'cache-control': 'no-store' });
  });

  // Built once per process, on first use: the table does not change while it runs.
  let document: JsonObject | undefined;
  route(app, 'getOpenAPI', async (c) => {
    document ??= await loadOpenAPIDocument();
    return c.json({ ...document, servers: [{ url: new URL(c.req.url).origin }] });
  });
}

/** The service's OpenAPI document, its generator and route table loaded for it. */
async function loadOpenAPIDocument(): Promise<JsonObject> {
  const [{ openAPIDocument }, { API_ROUTES }] = await Promise.all([import('../api/openapi.js'), import('../api/route-table.js')]);
  return openAPIDocument(API_ROUTES, { version: SERVICE_VERSION });
}
