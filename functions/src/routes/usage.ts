/** `GET /usage`: the caller's totals for today and this month, the limits that apply, and when the totals reset. */
import type { ApiApp } from '../http/app-env.js';
import { route } from '../http/route.js';
import type { UsageReportJson } from '../api/response-schemas.js';
import type { RouteDeps } from './route-deps.js';

export function usageRoutes(app: ApiApp, { usage }: RouteDeps): void {
  route(app, 'getUsage', async (c) => {
    const body: UsageReportJson = await usage.read(c.get('owner'));
    return c.json(body, 200, { 'cache-control': 'no-store' });
  });
}
