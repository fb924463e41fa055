/** The tree routes: the whole log, the tree of branches, switching the active leaf, forking. */
import { entryBody, entriesQuery, parse } from '../schemas.js';
import { pathSessionId, readJson, type App, type RouteDeps } from '../http.js';
import { contentsJson, entryJson, sessionJson } from './session-json.js';

/** Entries per page of `GET /sessions/{id}/entries` when `limit` is absent. */
export const DEFAULT_ENTRIES_LIMIT = 100;

export function treeRoutes(app: App, { sessions, limits }: RouteDeps): void {
  app.get('/sessions/:id/entries', async (c) => {
    const id = pathSessionId(c);
    const query = parse('query', entriesQuery, c.req.query());
    const page = await sessions.entries(c.get('owner'), id, {
      limit: query.limit ?? DEFAULT_ENTRIES_LIMIT,
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return c.json({ entries: page.entries.map(entryJson), next_cursor: page.nextCursor });
  });

  app.get('/sessions/:id/tree', async (c) => {
    const tree = await sessions.tree(c.get('owner'), pathSessionId(c));
    return c.json({
      active_leaf: tree.activeLeaf,
      leaves: tree.leaves.map((leaf) => ({ id: leaf.id, timestamp: leaf.timestamp, preview: tree.preview(leaf.id) })),
      branch_points: tree.branchPoints.map((entry) => entry.id),
    });
  });

  app.put('/sessions/:id/leaf', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', entryBody, await readJson(c, limits.bodyLimitBytes));
    const contents = await sessions.switchLeaf(c.get('owner'), id, body.entry_id);
    return c.json(contentsJson(contents));
  });

  app.post('/sessions/:id/fork', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', entryBody, await readJson(c, limits.bodyLimitBytes));
    return c.json(sessionJson(await sessions.fork(c.get('owner'), id, body.entry_id)), 201);
  });
}
