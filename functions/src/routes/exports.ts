/**
 * The session's JSONL in S3: `POST /sessions/{id}/export` writes one (kept, as an archive of
 * the session) and answers with a presigned URL; `GET /sessions/{id}/exports` lists the
 * exports and the sweeper's archives with fresh URLs; `POST /sessions/import` makes a new
 * session from a JSONL session as the body.
 */
import type { ListedExport } from '@panto/aws/transfer';
import { exportBody, exportsQuery, parse } from '../api/request-schemas.js';
import type { ApiApp } from '../http/app-env.js';
import { route } from '../http/route.js';
import { pathSessionId, readBytes, readJson } from './read-request.js';
import type { RouteDeps } from './route-deps.js';
import { sessionJson } from './session-json.js';
import type { ExportListJson, ImportedSessionJson, SessionExportJson } from '../api/response-schemas.js';

export function exportRoutes(app: ApiApp, { transfer, limits }: RouteDeps): void {
  route(app, 'exportSession', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', exportBody, await readJson(c, limits.bodyLimitBytes));
    const expiresIn = body.expires_in ?? limits.exportUrlTtlSeconds;
    const exported = await transfer.export(c.get('owner'), id, expiresIn);
    return c.json({ ...exported, expires_in: expiresIn } satisfies SessionExportJson);
  });

  // The body is the log itself (`application/x-ndjson`, the export format), within the body limit.
  route(app, 'importSession', async (c) => {
    const body = await readBytes(c, limits.bodyLimitBytes);
    const { importedFrom, ...session } = await transfer.import(c.get('owner'), body);
    return c.json({ ...sessionJson(session), imported_from: importedFrom } satisfies ImportedSessionJson, 201);
  });

  route(app, 'listExports', async (c) => {
    const id = pathSessionId(c);
    const query = parse('query', exportsQuery, c.req.query());
    const expiresIn = query.expires_in ?? limits.exportUrlTtlSeconds;
    const listed = await transfer.exports(c.get('owner'), id, expiresIn);
    return c.json({ exports: listed.map(exportJson), expires_in: expiresIn } satisfies ExportListJson);
  });
}

function exportJson(object: ListedExport): ExportListJson['exports'][number] {
  return {
    kind: object.kind,
    key: object.key,
    created_at: object.createdAt,
    bytes: object.bytes,
    entries: object.entries,
    storage_class: object.storageClass,
    url: object.url,
  };
}
