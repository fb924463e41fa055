/** `GET /models`: what a client may choose when it creates a session (see models.ts). */
import type { App, RouteDeps } from '../http.js';
import type { ModelsJson } from '../responses.js';

export function modelRoutes(app: App, { models }: RouteDeps): void {
  app.get('/models', (c) => {
    const body: ModelsJson = models();
    return c.json(body, 200, { 'cache-control': 'no-store' });
  });
}
