/**
 * The page's wire types (web/src/api/wire.gen.ts) and routes (web/src/api/routes.gen.ts) are
 * generated from the server's OpenAPI document and route manifest: a route or schema changed
 * without `npm run generate:wire` fails here.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_ROUTES, openAPIDocument, ROUTE_LIST, SERVICE_VERSION } from '@panto/functions';
import { describe, expect, it } from 'vitest';
import { WIRE_ROUTES_FILE, WIRE_TYPES_FILE, wireRoutes, wireTypes } from '../scripts/generate-wire-types.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('web/src/api/wire.gen.ts', () => {
  it('is what `npm run generate:wire` writes from the OpenAPI document now', async () => {
    const committed = await readFile(join(root, WIRE_TYPES_FILE), 'utf8');
    expect(committed, `${WIRE_TYPES_FILE} is stale: run \`npm run generate:wire\` and commit the result`).toBe(await wireTypes());
  });

  it('changes when a schema of the document changes', async () => {
    const document = openAPIDocument(API_ROUTES, { version: SERVICE_VERSION }) as { components: { schemas: { [name: string]: { properties: object } } } };
    const summary = document.components.schemas.SessionSummary!;
    summary.properties = { ...summary.properties, pinned: { type: 'boolean' } };
    const changed = await wireTypes(document);
    expect(changed).not.toBe(await wireTypes());
    expect(changed).toMatch(/SessionSummary: \{[^}]*pinned\?: boolean;/);
  });
});

describe('web/src/api/routes.gen.ts', () => {
  it('is what `npm run generate:wire` writes from the route manifest now', async () => {
    const committed = await readFile(join(root, WIRE_ROUTES_FILE), 'utf8');
    expect(committed, `${WIRE_ROUTES_FILE} is stale: run \`npm run generate:wire\` and commit the result`).toBe(wireRoutes());
  });

  it('changes when a route is added to the manifest', () => {
    const added = wireRoutes([...ROUTE_LIST, { operationId: 'getSession', method: 'GET', path: '/sessions/{id}/pins' }]);
    expect(added).not.toBe(wireRoutes());
    expect(added).toContain("path: '/sessions/{id}/pins', streamed: false");
  });
});
