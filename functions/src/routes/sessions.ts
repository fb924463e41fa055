/** The session routes: create, list, read, change, delete. */
import { createSessionBody, listQuery, parse, updateSessionBody } from '../schemas.js';
import { pathSessionId, readJson, type App, type RouteDeps } from '../http.js';
import { contentsJson, sessionJson } from './session-json.js';

export function sessionRoutes(app: App, { sessions, providers, limits, idempotent }: RouteDeps): void {
  app.post('/sessions', async (c) => {
    const body = parse('body', createSessionBody, await readJson(c, limits.bodyLimitBytes));
    // An unknown provider or model (400) or a provider without a key here (422) is refused before anything is written.
    const provider = providers(
      {
        ...(body.provider === undefined ? {} : { provider: body.provider }),
        ...(body.model === undefined ? {} : { model: body.model }),
      },
      { check: true },
    );
    const chosen = body.provider !== undefined || body.model !== undefined;
    return idempotent(c, body, async () => {
      const session = await sessions.create(c.get('owner'), {
        provider,
        chosen,
        ...(body.system === undefined ? {} : { system: body.system }),
      });
      c.set('sessionId', session.metadata.id);
      return c.json(sessionJson(session), 201);
    });
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
    return c.json(contentsJson(await sessions.read(c.get('owner'), pathSessionId(c))));
  });

  app.patch('/sessions/:id', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', updateSessionBody, await readJson(c, limits.bodyLimitBytes));
    const change = {
      ...(body.title === undefined ? {} : { title: body.title }),
      ...(body.provider === undefined ? {} : { provider: body.provider }),
      ...(body.model === undefined ? {} : { model: body.model }),
    };
    return c.json(sessionJson(await sessions.update(c.get('owner'), id, change)));
  });

  app.delete('/sessions/:id', async (c) => {
    await sessions.delete(c.get('owner'), pathSessionId(c));
    return c.body(null, 204);
  });
}
