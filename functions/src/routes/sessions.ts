/** The session routes: create, list, read, delete. */
import { createSessionBody, listQuery, parse } from '../schemas.js';
import type { SessionSummary } from '../session-service.js';
import { pathSessionId, readJson, type App, type RouteDeps } from '../http.js';

export function sessionRoutes(app: App, { sessions, providers, limits }: RouteDeps): void {
  app.post('/sessions', async (c) => {
    const body = parse('body', createSessionBody, await readJson(c, limits.bodyLimitBytes));
    // An unknown provider (400) or one without a key here (422) is refused before anything is written.
    const provider = providers({
      ...(body.provider === undefined ? {} : { provider: body.provider }),
      ...(body.model === undefined ? {} : { model: body.model }),
    });
    const chosen = body.provider !== undefined || body.model !== undefined;
    const session = await sessions.create(c.get('owner'), {
      provider,
      chosen,
      ...(body.system === undefined ? {} : { system: body.system }),
    });
    return c.json(sessionJson(session), 201);
  });

  app.get('/sessions', async (c) => {
    const query = parse('query', listQuery, c.req.query());
    const page = await sessions.list(c.get('owner'), {
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return c.json({ sessions: page.sessions.map(sessionJson), next_cursor: page.nextCursor });
  });

  app.get('/sessions/:id', async (c) => {
    const contents = await sessions.read(c.get('owner'), pathSessionId(c));
    return c.json({
      id: contents.id,
      messages: contents.messages,
      dangling_user: contents.danglingUser,
      active_model: contents.activeModel,
      usage: contents.usage,
    });
  });

  app.delete('/sessions/:id', async (c) => {
    await sessions.delete(c.get('owner'), pathSessionId(c));
    return c.body(null, 204);
  });
}

function sessionJson({ metadata, activeModel }: SessionSummary): {
  id: string;
  created_at: string;
  updated_at: string;
  active_model: SessionSummary['activeModel'];
  title: string | null;
  entry_count: number;
  archived: boolean;
} {
  return {
    id: metadata.id,
    created_at: metadata.createdAt,
    updated_at: metadata.updatedAt,
    active_model: activeModel,
    title: metadata.title,
    entry_count: metadata.entryCount,
    archived: metadata.archived,
  };
}
