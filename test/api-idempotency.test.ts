/**
 * `Idempotency-Key` on POST /sessions and POST /sessions/{id}/messages, over HTTP against
 * DynamoDB Local and s3rver: a retry answers the first response and writes nothing, another
 * body is a 422, a key still running is a 409, a failed request frees its key; and the store
 * itself on DynamoDB Local: keys expire, a dead claim is taken over, big answers go to S3.
 */
import { randomBytes } from 'node:crypto';
import { acquireSessionLease, DynamoIdempotencyStore, MAX_INLINE_RESPONSE_BYTES } from '@panto/aws';
import { waitUntil } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot, startApi, type ApiHarness } from './api-harness.js';

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi('api-idempotency');
});
afterAll(async () => {
  await api?.close();
});

const key = (): string => `key-${randomBytes(6).toString('hex')}`;

async function post(path: string, body: unknown, idempotencyKey: string, owner = 'alice'): Promise<{ status: number; text: string; replayed: string | null }> {
  const response = await api.call(owner, 'POST', path, body, { 'idempotency-key': idempotencyKey });
  return { status: response.status, text: await response.text(), replayed: response.headers.get('idempotent-replayed') };
}

describe('Idempotency-Key on POST /sessions', () => {
  it('answers a retry with the first response and creates nothing more', async () => {
    const k = key();
    const first = await post('/sessions', { system: 'Be brief.' }, k);
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    const before = await snapshot(api.aws);
    // The same body spelt differently is the same request.
    const again = await post('/sessions', JSON.stringify({ system: 'Be brief.' }, null, 2), k);
    expect(again).toEqual({ status: 201, text: first.text, replayed: 'true' });
    expect(await snapshot(api.aws)).toEqual(before);
    const listed = (await (await api.call('alice', 'GET', '/sessions?limit=100')).json()) as { sessions: { id: string }[] };
    expect(listed.sessions.filter((session) => session.id === (JSON.parse(first.text) as { id: string }).id)).toHaveLength(1);
  });

  it('refuses the same key with another body with 422, writing nothing', async () => {
    const k = key();
    expect((await post('/sessions', { system: 'one' }, k)).status).toBe(201);
    const before = await snapshot(api.aws);
    const other = await post('/sessions', { system: 'two' }, k);
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text)).toEqual({
      error: { code: 'idempotency_key_reused', message: 'this Idempotency-Key was used with another request', field: 'Idempotency-Key' },
    });
    expect(await snapshot(api.aws)).toEqual(before);
  });

  it("scopes keys by owner: another owner's same key is their own", async () => {
    const k = key();
    const alice = JSON.parse((await post('/sessions', {}, k, 'alice')).text) as { id: string };
    const bob = await post('/sessions', {}, k, 'bob');
    expect(bob.status).toBe(201);
    expect(bob.replayed).toBeNull();
    expect((JSON.parse(bob.text) as { id: string }).id).not.toBe(alice.id);
  });

  it('refuses a key that is not 1–255 printable ASCII characters with 400, and stores no key for a refused body', async () => {
    for (const bad of ['', 'x'.repeat(256), 'with space']) {
      const response = await post('/sessions', {}, bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(JSON.parse(response.text)).toMatchObject({ error: { code: 'invalid_header', field: 'Idempotency-Key' } });
    }
    const before = await snapshot(api.aws);
    expect((await post('/sessions', { nonsense: true }, key())).status).toBe(400);
    expect(await snapshot(api.aws)).toEqual(before);
  });
});

describe('Idempotency-Key on POST /sessions/{id}/messages', () => {
  it('runs the turn once: a retry gets the same answer, calls no model and writes nothing', async () => {
    const { id } = JSON.parse((await post('/sessions', {}, key())).text) as { id: string };
    const k = key();
    api.fake.enqueue({ text: 'Only once.' });
    const first = await post(`/sessions/${id}/messages`, { text: 'hello' }, k);
    expect(first.status).toBe(200);
    const calls = api.fake.requests.length;
    const before = await snapshot(api.aws);
    const again = await post(`/sessions/${id}/messages`, { text: 'hello' }, k);
    expect(again).toEqual({ status: 200, text: first.text, replayed: 'true' });
    expect(api.fake.requests.length).toBe(calls);
    expect(await snapshot(api.aws)).toEqual(before);
    const contents = (await (await api.call('alice', 'GET', `/sessions/${id}`)).json()) as { messages: { role: string }[] };
    expect(contents.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('answers 409 while the first request with the key still runs, then the first answer', async () => {
    const { id } = JSON.parse((await post('/sessions', {}, key())).text) as { id: string };
    const k = key();
    api.fake.enqueue({ text: 'Slow answer.', delayMs: 1500 });
    const calls = api.fake.requests.length;
    const first = post(`/sessions/${id}/messages`, { text: 'slow' }, k);
    await waitUntil(() => api.fake.requests.length > calls, { message: 'the first turn reached the model', timeoutMs: 10_000 });
    const during = await post(`/sessions/${id}/messages`, { text: 'slow' }, k);
    expect(during.status).toBe(409);
    expect(JSON.parse(during.text)).toMatchObject({ error: { code: 'idempotency_key_in_progress' } });
    const done = await first;
    expect(done.status).toBe(200);
    expect(await post(`/sessions/${id}/messages`, { text: 'slow' }, k)).toEqual({ status: 200, text: done.text, replayed: 'true' });
  });

  it('keeps no answer for a request that failed with an error status: a retry runs again', async () => {
    const { id } = JSON.parse((await post('/sessions', {}, key())).text) as { id: string };
    const k = key();
    // Another turn holds the session: 409 session_busy, nothing written, the key freed.
    const lease = await acquireSessionLease({ client: api.aws.dynamo, tableName: api.aws.tableName, owner: 'alice', sessionId: id, leaseMs: 60_000 });
    const busy = await post(`/sessions/${id}/messages`, { text: 'now?' }, k);
    expect(busy.status).toBe(409);
    expect(JSON.parse(busy.text)).toMatchObject({ error: { code: 'session_busy' } });
    await lease.release();
    api.fake.enqueue({ text: 'Now.' });
    const retried = await post(`/sessions/${id}/messages`, { text: 'now?' }, k);
    expect(retried.status).toBe(200);
    expect(retried.replayed).toBeNull();
  });

  it('keeps a turn the provider failed (502, with what it stored), like any answer the route gave', async () => {
    const { id } = JSON.parse((await post('/sessions', {}, key())).text) as { id: string };
    const k = key();
    api.fake.enqueue({ status: 400, errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'no' } } });
    const failed = await post(`/sessions/${id}/messages`, { text: 'fail' }, k);
    expect(failed.status).toBe(502);
    const calls = api.fake.requests.length;
    expect(await post(`/sessions/${id}/messages`, { text: 'fail' }, k)).toEqual({ status: 502, text: failed.text, replayed: 'true' });
    expect(api.fake.requests.length).toBe(calls);
  });

  it('reports no internal failure for any of the above', () => {
    expect(api.logged).toEqual([]);
  });
});

describe('DynamoIdempotencyStore on DynamoDB Local', () => {
  const request = { owner: 'alice', key: 'k', fingerprint: 'fp', inProgressMs: 10_000 };

  it('answers retries until the key expires, then lets it be claimed again', async () => {
    let now = Date.UTC(2026, 11, 1);
    const store = new DynamoIdempotencyStore({ client: api.aws.dynamo, tableName: api.aws.tableName, ttlSeconds: 3600, now: () => now });
    const sameKey = { ...request, key: key() };
    const claim = await store.claim(sameKey);
    if (claim.state !== 'claimed') throw new Error('not claimed');
    await store.complete(claim, { status: 201, body: '{"id":"x"}' });
    now += 3599_000;
    expect(await store.claim(sameKey)).toEqual({ state: 'completed', response: { status: 201, body: '{"id":"x"}' } });
    // Past its TTL (before DynamoDB deletes it, which may take days) the key is free again.
    now += 2_000;
    expect((await store.claim(sameKey)).state).toBe('claimed');
  });

  it('lets another request take over a claim whose request died, past its deadline; the dead one cannot complete it', async () => {
    let now = Date.UTC(2026, 11, 1);
    const store = new DynamoIdempotencyStore({ client: api.aws.dynamo, tableName: api.aws.tableName, now: () => now });
    const k = { ...request, key: key() };
    const dead = await store.claim(k);
    expect(await store.claim(k)).toEqual({ state: 'in_progress' });
    now += 10_001;
    const next = await store.claim(k);
    expect(next.state).toBe('claimed');
    if (dead.state !== 'claimed' || next.state !== 'claimed') return;
    await store.complete(dead, { status: 200, body: '"late"' });
    await store.complete(next, { status: 200, body: '"kept"' });
    expect(await store.claim(k)).toEqual({ state: 'completed', response: { status: 200, body: '"kept"' } });
  });

  it('keeps an answer too big for an item in the bucket, and gives it back', async () => {
    const store = new DynamoIdempotencyStore({ client: api.aws.dynamo, tableName: api.aws.tableName, s3: { client: api.aws.s3, bucket: api.aws.bucket } });
    const k = { ...request, key: key() };
    const claim = await store.claim(k);
    if (claim.state !== 'claimed') throw new Error('not claimed');
    const body = JSON.stringify({ text: randomBytes(MAX_INLINE_RESPONSE_BYTES).toString('base64') });
    await store.complete(claim, { status: 200, body });
    expect((await snapshot(api.aws)).objects.some((object) => object.startsWith('idempotency/'))).toBe(true);
    expect(await store.claim(k)).toEqual({ state: 'completed', response: { status: 200, body } });
  });
});
