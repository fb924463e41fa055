/** The tree routes: the whole log, the tree of branches, switching the active leaf, forking. */
import { entryBody, entriesQuery, parse } from '../api/request-schemas.js';
import type { ApiApp } from '../http/app-env.js';
import { route } from '../http/route.js';
import { pathSessionId, readJson } from './read-request.js';
import type { RouteDeps } from './route-deps.js';
import { contentsJson, entryJson, sessionJson } from './session-json.js';
import type { EntriesPageJson, SessionTreeJson } from '../api/response-schemas.js';

/** Entries per page of `GET /sessions/{id}/entries` when `limit` is absent. */
export const DEFAULT_ENTRIES_LIMIT = 100;

export function treeRoutes(app: ApiApp, { tree, transfer, limits }: RouteDeps): void {
  route(app, 'listEntries', async (c) => {
    const id = pathSessionId(c);
    const query = parse('query', entriesQuery, c.req.query());
    const page = await tree.entries(c.get('owner'), id, {
      limit: query.limit ?? DEFAULT_ENTRIES_LIMIT,
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return c.json({ entries: page.entries.map(entryJson), next_cursor: page.nextCursor } satisfies EntriesPageJson);
  });

  route(app, 'getTree', async (c) => {
    const branches = await tree.tree(c.get('owner'), pathSessionId(c));
    return c.json({
      active_leaf: branches.activeLeaf,
      leaves: branches.leaves.map((leaf) => ({ id: leaf.id, timestamp: leaf.timestamp, preview: branches.preview(leaf.id) })),
      branch_points: branches.branchPoints.map((entry) => entry.id),
    } satisfies SessionTreeJson);
  });

  route(app, 'switchLeaf', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', entryBody, await readJson(c, limits.bodyLimitBytes));
    const contents = await tree.switchLeaf(c.get('owner'), id, body.entry_id);
    return c.json(contentsJson(contents));
  });

  route(app, 'forkSession', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', entryBody, await readJson(c, limits.bodyLimitBytes));
    return c.json(sessionJson(await transfer.fork(c.get('owner'), id, body.entry_id)), 201);
  });
}
