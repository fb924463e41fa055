import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { API_ROUTES } from './route-table.js';
import { PUBLIC_ROUTES, ROUTE_LIST, routeKey } from './routes.js';
import { createApp } from '../app/create-app.js';
import { DEFAULT_SERVICE_LIMITS } from '../config.js';
import { hs256Verifier } from '../local/local-tokens.js';
import { openAPIDocument } from './openapi.js';
import { SERVICE_VERSION } from '../version.js';

/** The app's routes as `METHOD /path/{param}`, without middleware. */
function registeredRoutes(): string[] {
  const app = createApp({
    dynamo: {} as never,
    tableName: 't',
    s3: {} as never,
    bucket: 'b',
    providers: () => {
      throw new Error('not called');
    },
    verifier: hs256Verifier(new Uint8Array(32)),
    limits: DEFAULT_SERVICE_LIMITS,
  });
  const routes = app.routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
  return [...new Set(routes)].sort((a, b) => a.localeCompare(b));
}

describe('the route manifest', () => {
  it('names every route the app registers, once, and no route the app does not serve', () => {
    const manifest = ROUTE_LIST.map(routeKey).sort((a, b) => a.localeCompare(b));
    expect(new Set(manifest).size).toBe(manifest.length);
    expect(manifest).toEqual(registeredRoutes());
  });

  it('makes public only the health check, the document itself and the A2A Agent Card', () => {
    expect([...PUBLIC_ROUTES].sort((a, b) => a.localeCompare(b))).toEqual(['GET /.well-known/agent-card.json', 'GET /health', 'GET /openapi.json']);
  });

  it('is what the OpenAPI document describes, route for route, with its public flags', () => {
    expect(API_ROUTES.map(({ method, path, operationId }) => `${operationId} ${method.toUpperCase()} ${path}`)).toEqual(
      ROUTE_LIST.map((line) => `${line.operationId} ${routeKey(line)}`),
    );
    expect(new Set(API_ROUTES.filter((route) => route.public).map((route) => `${route.method.toUpperCase()} ${route.path}`))).toEqual(PUBLIC_ROUTES);
  });
});

describe('the OpenAPI document', () => {
  const document = openAPIDocument(API_ROUTES, { version: SERVICE_VERSION, serverUrl: 'https://api.example.com' });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document).toMatchObject({ openapi: '3.1.0', info: { version: SERVICE_VERSION }, servers: [{ url: 'https://api.example.com' }] });
  });

  it('describes each request body with the schema that validates it', () => {
    const createSession = (document.paths as Record<string, Record<string, { requestBody?: unknown }>>)['/sessions']!.post!;
    expect(createSession.requestBody).toEqual({
      required: false,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateSessionRequest' } } },
    });
    const schemas = (document.components as { schemas: Record<string, unknown> }).schemas;
    expect(schemas.CreateSessionRequest).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { provider: { pattern: '^[a-z0-9][a-z0-9_-]*$', maxLength: 200 }, model: { maxLength: 200 } },
    });
  });

  it("describes the import's body as the JSONL log it is, and its 400 as a bad log", () => {
    const importSession = (
      document.paths as Record<
        string,
        Record<string, { requestBody?: { content: Record<string, unknown> }; responses: Record<string, { description: string }> }>
      >
    )['/sessions/import']!.post!;
    expect(Object.keys(importSession.requestBody?.content ?? {})).toEqual(['application/x-ndjson']);
    expect(importSession.responses['400']!.description).toMatch(/invalid_session/);
  });

  it('takes a token on every operation but the public ones, and an Idempotency-Key where a retry can repeat a write', () => {
    const operations = Object.entries(document.paths as Record<string, Record<string, { security?: unknown; parameters?: { name: string }[] }>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
    );
    for (const { key, operation } of operations) {
      expect(operation.security, key).toEqual(PUBLIC_ROUTES.has(key) ? [] : undefined);
    }
    const idempotent = operations.filter(({ operation }) => operation.parameters?.some((parameter) => parameter.name === 'Idempotency-Key'));
    expect(idempotent.map(({ key }) => key).sort()).toEqual(['POST /sessions', 'POST /sessions/{id}/approvals', 'POST /sessions/{id}/messages']);
  });
});

describe('SERVICE_VERSION', () => {
  it("is the functions package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(SERVICE_VERSION).toBe(pkg.version);
  });
});
