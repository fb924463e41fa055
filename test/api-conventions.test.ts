/**
 * The conventions a client expects of the HTTP API, over HTTP on loopback: a health check and
 * the OpenAPI document without a token, CORS (preflights answered on every route without a
 * token, headers on every answer, errors included), the conformance checker itself, and the
 * local stack's interactive reference page.
 */
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { serve } from '@hono/node-server';
import { API_ROUTES, openAPIDocument, ownerHash, SERVICE_VERSION } from '@panto/functions';
import { waitUntil } from '@panto/core/testing';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withReference } from '../scripts/local/reference.js';
import { snapshot, startApi, type ApiHarness } from './api-harness.js';
import { ConformanceChecker } from './openapi-conformance.js';

const ORIGIN = 'https://app.example.com';
let api: ApiHarness;

beforeAll(async () => {
  api = await startApi('api-conventions', { corsOrigins: [ORIGIN] });
});
afterAll(async () => {
  await api?.close();
});

/** Every route's path with a made-up id for `{id}`, and its method. */
const everyRoute = API_ROUTES.map((route) => ({
  method: route.method.toUpperCase(),
  path: route.path.replace('{id}', '0190a1b2-0000-7000-8000-000000000001'),
}));

describe('GET /health', () => {
  it('answers 200 without a token, with the version and that the table answers', async () => {
    const response = await api.call(null, 'GET', '/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ status: 'ok', version: SERVICE_VERSION, table: 'ok' });
  });

  it('answers 503 degraded when the table does not answer, and logs it as an outage', async () => {
    // Nothing listens on port 9 of loopback: every DynamoDB request fails to connect.
    const dynamo = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
    const down = await startApi('api-conventions-down', { dynamo, aws: api.aws });
    try {
      const response = await down.call(null, 'GET', '/health');
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ status: 'degraded', version: SERVICE_VERSION, table: 'unavailable' });
      expect(down.outages).toEqual(['health check: the table did not answer: ECONNREFUSED']);
      expect(down.logged).toEqual([]);
    } finally {
      await down.close();
    }
  });
});

describe('GET /openapi.json', () => {
  it('serves a valid OpenAPI 3.1 document without a token, naming this server', async () => {
    const response = await api.call(null, 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as { servers: { url: string }[] };
    expect(await new Validator().validate(structuredClone(document))).toEqual({ valid: true });
    expect(document.servers).toEqual([{ url: api.url }]);
    const { servers: _servers, ...rest } = document;
    expect(rest).toEqual(openAPIDocument(API_ROUTES, { version: SERVICE_VERSION }));
  });
});

describe('the conformance checker', () => {
  const checker = new ConformanceChecker(openAPIDocument(API_ROUTES, { version: SERVICE_VERSION }));
  const json = (status: number, body: unknown): Response => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it('passes a response that matches, and names each way one departs', async () => {
    const health = { status: 'ok', version: '1', table: 'ok' };
    expect(await checker.check('GET', '/health', json(200, health))).toEqual([]);
    expect(await checker.check('GET', '/health', json(200, { ...health, extra: 1 }))).toEqual([
      'GET /health → 200: (body) must NOT have additional properties {"additionalProperty":"extra"}',
    ]);
    expect(await checker.check('GET', '/health', json(200, { ...health, table: 'maybe' }))).toHaveLength(1);
    expect(await checker.check('GET', '/sessions?limit=1', json(200, { sessions: [{ id: 'x' }], next_cursor: null }))).not.toEqual([]);
    // (A Response cannot carry a body with 204; a server still can.)
    const noContent = { status: 204, headers: new Headers(), text: async () => 'gone' } as Response;
    expect(await checker.check('DELETE', '/sessions/x', noContent)).toEqual(['DELETE /sessions/{id} → 204: documented without a body, answered "gone"']);
    expect(await checker.check('GET', '/sessions/x', new Response('<html>', { status: 200, headers: { 'content-type': 'text/html' } }))).toEqual([
      'GET /sessions/{id} → 200: content type text/html not documented (application/json)',
    ]);
    // Any other status is a `default`: an Error body.
    expect(await checker.check('GET', '/sessions/x', json(500, { error: { code: 'internal_error', message: 'x' } }))).toEqual([]);
    expect(await checker.check('GET', '/sessions/x', json(500, { oops: true }))).not.toEqual([]);
    expect(await checker.check('GET', '/nowhere', json(404, { anything: true }))).toEqual([]);
  });
});

describe('CORS', () => {
  async function preflight(method: string, path: string, origin: string): Promise<Response> {
    return fetch(`${api.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
    });
  }

  it('answers a preflight on every route with 204 and the rules, without a token, and changes nothing', async () => {
    const before = await snapshot(api.aws);
    for (const { method, path } of everyRoute) {
      const response = await preflight(method, path, ORIGIN);
      expect(response.status, `${method} ${path}`).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(response.headers.get('access-control-allow-methods')?.split(',')).toContain(method);
      expect(response.headers.get('access-control-allow-headers')).toBe('authorization,content-type,idempotency-key,a2a-version');
      expect(response.headers.get('access-control-max-age')).toBe('600');
      expect(response.headers.get('vary')).toContain('Origin');
      expect(await response.text()).toBe('');
    }
    expect(await snapshot(api.aws)).toEqual(before);
  });

  it('allows no other origin', async () => {
    const response = await preflight('POST', '/sessions', 'https://evil.example.com');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const answer = await api.call('alice', 'GET', '/sessions', undefined, { origin: 'https://evil.example.com' });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('puts the headers on answers, errors included, so a page can read them', async () => {
    const ok = await api.call('alice', 'POST', '/sessions', {}, { origin: ORIGIN });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(ok.headers.get('access-control-expose-headers')).toBe('retry-after,idempotent-replayed');
    const refused = await api.call(null, 'GET', '/sessions', undefined, { origin: ORIGIN });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const missing = await api.call('alice', 'GET', '/sessions/0190a1b2-0000-7000-8000-000000000009', undefined, { origin: ORIGIN });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('answers a request without Origin (no browser sent it) without CORS headers, only Vary: Origin for caches', async () => {
    const ok = await api.call('alice', 'POST', '/sessions', {});
    expect(ok.status).toBe(201);
    expect(ok.headers.get('access-control-allow-origin')).toBeNull();
    expect(ok.headers.get('access-control-expose-headers')).toBeNull();
    expect(ok.headers.get('vary')).toContain('Origin');
    expect(((await ok.json()) as { id?: unknown }).id).toEqual(expect.any(String));
    const refused = await api.call(null, 'GET', '/sessions');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('vary')).toContain('Origin');
  });

  it('allows any origin with *', async () => {
    const open = await startApi('api-conventions-any', { corsOrigins: ['*'], aws: api.aws });
    try {
      const response = await fetch(`${open.url}/sessions`, {
        method: 'OPTIONS',
        headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'GET' },
      });
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await open.close();
    }
  });
});

describe('request records (logs and metrics)', () => {
  it("records each request once: its route, status, duration, session, owner hash and a turn's tokens, never the owner or the prompt", async () => {
    const secret = 'my secret plan for the heist';
    const created = await api.call('alice', 'POST', '/sessions', {});
    const { id } = (await created.json()) as { id: string };
    api.fake.enqueue({ text: 'Noted.', usage: { input: 21, output: 3 } });
    await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: secret }, { 'idempotency-key': 'records-1' });
    await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: secret }, { 'idempotency-key': 'records-1' });
    await api.call('alice', 'GET', '/sessions/0190a1b2-0000-7000-8000-00000000000f');
    await api.call(null, 'GET', '/health');
    const [create, turn, replay, missing, health] = api.records.slice(-5);
    expect(create).toMatchObject({ method: 'POST', route: '/sessions', status: 201, session_id: id, owner_hash: ownerHash('alice') });
    expect(create?.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(turn).toMatchObject({
      method: 'POST',
      route: '/sessions/{id}/messages',
      status: 200,
      session_id: id,
      turn: true,
      idempotency: 'claimed',
      usage: { input_tokens: 21, output_tokens: 3, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
    expect(turn?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(replay).toMatchObject({ route: '/sessions/{id}/messages', status: 200, idempotency: 'replayed' });
    expect(replay).not.toHaveProperty('usage');
    expect(missing).toMatchObject({ route: '/sessions/{id}', status: 404, error_code: 'session_not_found' });
    expect(health).toMatchObject({ route: '/health', status: 200 });
    expect(health).not.toHaveProperty('owner_hash');
    const all = JSON.stringify(api.records);
    expect(all).not.toContain('alice');
    expect(all).not.toContain(secret);
    expect(all).not.toContain('Bearer');
  });

  it("records a streamed turn when its stream ends, with the turn's tokens", async () => {
    const { id } = (await (await api.call('alice', 'POST', '/sessions', {})).json()) as { id: string };
    api.fake.enqueue({ text: 'Streamed.', usage: { input: 8, output: 2 } });
    const before = api.records.length;
    const response = await api.call('alice', 'POST', `/sessions/${id}/messages/stream`, { text: 'go' });
    await response.text();
    await waitUntil(() => api.records.length > before, { message: 'the streamed turn was recorded', timeoutMs: 5000 });
    expect(api.records.at(-1)).toMatchObject({
      route: '/sessions/{id}/messages/stream',
      status: 200,
      turn: true,
      session_id: id,
      usage: { input_tokens: 8, output_tokens: 2 },
    });
  });

  it('records refusals with their code, and routes that do not exist as *', async () => {
    await api.call(null, 'GET', '/sessions');
    expect(api.records.at(-1)).toMatchObject({ route: '/sessions', status: 401, error_code: 'unauthorized' });
    await api.call('alice', 'GET', '/nowhere');
    expect(api.records.at(-1)).toMatchObject({ route: '*', status: 404, error_code: 'not_found' });
  });
});

describe('the reference page (local stack)', () => {
  it('serves Swagger UI from node_modules on /reference, and passes every other request to the API', async () => {
    const server = serve({
      fetch: withReference({ fetch: (request) => fetch(`${api.url}${new URL(request.url).pathname}`, request) }).fetch,
      port: 0,
      hostname: '127.0.0.1',
    });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const page = await fetch(`${url}/reference`);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      for (const src of html.matchAll(/(?:src|href)="(\/reference\/[^"]+)"/g)) {
        const asset = await fetch(`${url}${src[1]}`);
        expect(asset.status, src[1]).toBe(200);
        expect((await asset.arrayBuffer()).byteLength, src[1]).toBeGreaterThan(0);
      }
      expect(await (await fetch(`${url}/reference/init.js`)).text()).toContain("url: '/openapi.json'");
      expect((await fetch(`${url}/reference/package.json`)).status).toBe(404);
      expect((await fetch(`${url}/reference/..%2Fpackage.json`)).status).toBe(404);
      expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ status: 'ok' });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
