/** The routes about the service itself, answered without a token: its health and its OpenAPI document. */
import { API_ROUTES } from '../api/route-table.js';
import { outageOf } from '../errors.js';
import type { ApiApp } from '../app/app-env.js';
import type { RouteDeps } from './route-deps.js';
import { openAPIDocument } from '../api/openapi.js';
import type { HealthJson } from '../api/response-schemas.js';
import { SERVICE_VERSION } from '../version.js';

/** How long `GET /health` waits for the table. */
export const HEALTH_TABLE_TIMEOUT_MS = 2000;

export function metaRoutes(app: ApiApp, { admin, logOutage }: RouteDeps): void {
  app.get('/health', async (c) => {
    const ping = await admin.ping(HEALTH_TABLE_TIMEOUT_MS);
    if (!ping.ok) {
      const what = outageOf(ping.error) ?? (ping.error instanceof Error ? ping.error.name : String(ping.error));
      logOutage(`health check: the table did not answer: ${what}`);
    }
    const body: HealthJson = { status: ping.ok ? 'ok' : 'degraded', version: SERVICE_VERSION, table: ping.ok ? 'ok' : 'unavailable' };
    return c.json(body, ping.ok ? 200 : 503, { 'cache-control': 'no-store' });
  });

  // Built once per process, on first use: the table does not change while it runs.
  let document: ReturnType<typeof openAPIDocument> | undefined;
  app.get('/openapi.json', (c) => {
    document ??= openAPIDocument(API_ROUTES, { version: SERVICE_VERSION });
    return c.json({ ...document, servers: [{ url: new URL(c.req.url).origin }] });
  });
}
