/** The session routes: create, list, read, change, delete. */
import { createSessionBody, listQuery, parse, updateSessionBody } from '../api/request-schemas.js';
import type { ApiApp } from '../http/app-env.js';
import { route } from '../http/route.js';
import { pathSessionId, readJson } from './read-request.js';
import type { RouteDeps } from './route-deps.js';
import { contentsJson, sessionJson } from './session-json.js';
import type { SessionListJson } from '../api/response-schemas.js';

export function sessionRoutes(app: ApiApp, { admin, providers, limits, idempotent }: RouteDeps): void {
  route(app, 'createSession', async (c) => {
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
      const session = await admin.create(c.get('owner'), {
        provider,
        chosen,
        ...(body.system === undefined ? {} : { system: body.system }),
      });
      c.set('sessionId', session.metadata.id);
      return c.json(sessionJson(session), 201);
    });
  });

  route(app, 'listSessions', async (c) => {
    const query = parse('query', listQuery, c.req.query());
    const page = await admin.list(c.get('owner'), {
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return c.json({ sessions: page.sessions.map(sessionJson), next_cursor: page.nextCursor } satisfies SessionListJson);
  });

  route(app, 'getSession', async (c) => {
    return c.json(contentsJson(await admin.read(c.get('owner'), pathSessionId(c))));
  });

  route(app, 'updateSession', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', updateSessionBody, await readJson(c, limits.bodyLimitBytes));
    const change = {
      ...(body.title === undefined ? {} : { title: body.title }),
      ...(body.provider === undefined ? {} : { provider: body.provider }),
      ...(body.model === undefined ? {} : { model: body.model }),
    };
    return c.json(sessionJson(await admin.update(c.get('owner'), id, change)));
  });

  route(app, 'deleteSession', async (c) => {
    await admin.delete(c.get('owner'), pathSessionId(c));
    return c.body(null, 204);
  });
}
