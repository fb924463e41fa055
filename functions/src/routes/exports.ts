/**
 * The archive routes: `POST /sessions/{id}/export` (the session's JSONL to S3, and a
 * presigned URL to fetch it) and `POST /sessions/import` (a JSONL session as the body).
 */
import { exportBody, parse } from '../schemas.js';
import { pathSessionId, readBytes, readJson, type App, type RouteDeps } from '../http.js';
import { sessionJson } from './session-json.js';

export function exportRoutes(app: App, { sessions, limits }: RouteDeps): void {
  app.post('/sessions/:id/export', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', exportBody, await readJson(c, limits.bodyLimitBytes));
    const expiresIn = body.expires_in ?? limits.exportUrlTtlSeconds;
    const exported = await sessions.export(c.get('owner'), id, expiresIn);
    return c.json({ ...exported, expires_in: expiresIn });
  });

  // The body is the log itself (`application/x-ndjson`, the export format), within the body limit.
  app.post('/sessions/import', async (c) => {
    const body = await readBytes(c, limits.bodyLimitBytes);
    return c.json(sessionJson(await sessions.import(c.get('owner'), body)), 201);
  });
}
