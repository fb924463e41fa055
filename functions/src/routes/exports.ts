/** `POST /sessions/{id}/export`: the session's JSONL to S3, and a presigned URL to fetch it. */
import { exportBody, parse } from '../schemas.js';
import { pathSessionId, readJson, type App, type RouteDeps } from '../http.js';

export function exportRoutes(app: App, { sessions, limits }: RouteDeps): void {
  app.post('/sessions/:id/export', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', exportBody, await readJson(c, limits.bodyLimitBytes));
    const expiresIn = body.expires_in ?? limits.exportUrlTtlSeconds;
    const exported = await sessions.export(c.get('owner'), id, expiresIn);
    return c.json({ ...exported, expires_in: expiresIn });
  });
}
