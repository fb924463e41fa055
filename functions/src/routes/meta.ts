/** The routes about the service itself, answered without a token: its health and its OpenAPI document. */
import { API_ROUTES } from '../api-routes.js';
import { outageOf } from '../errors.js';
import type { App, RouteDeps } from '../http.js';
import { openAPIDocument } from '../openapi.js';
import type { HealthJson } from '../responses.js';
import { VERSION } from '../version.js';

/** How long `GET /health` waits for the table. */
export const HEALTH_TABLE_TIMEOUT_MS = 2000;

export function metaRoutes(app: App, { sessions, logOutage }: RouteDeps): void {
  app.get('/health', async (c) => {
    const ping = await sessions.ping(HEALTH_TABLE_TIMEOUT_MS);
    if (!ping.ok) {
      const what = outageOf(ping.error) ?? (ping.error instanceof Error ? ping.error.name : String(ping.error));
      logOutage(`health check: the table did not answer: ${what}`);
    }
    const body: HealthJson = { status: ping.ok ? 'ok' : 'degraded', version: VERSION, table: ping.ok ? 'ok' : 'unavailable' };
    return c.json(body, ping.ok ? 200 : 503, { 'cache-control': 'no-store' });
  });

  // Built once per process, on first use: the table does not change while it runs.
  let document: ReturnType<typeof openAPIDocument> | undefined;
  app.get('/openapi.json', (c) => {
    document ??= openAPIDocument(API_ROUTES, { version: VERSION });
    return c.json({ ...document, servers: [{ url: new URL(c.req.url).origin }] });
  });
}
