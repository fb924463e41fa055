/** `GET /models`: what a client may choose when it creates a session (see agent/offered-models.ts). */
import type { ApiApp } from '../http/app-env.js';
import { route } from '../http/route.js';
import type { RouteDeps } from './route-deps.js';
import type { ModelsJson } from '../api/response-schemas.js';

export function modelRoutes(app: ApiApp, { models }: RouteDeps): void {
  route(app, 'listModels', (c) => {
    const body: ModelsJson = models();
    return c.json(body, 200, { 'cache-control': 'no-store' });
  });
}
