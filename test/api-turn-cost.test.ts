/**
 * What a service turn costs DynamoDB, counted by a proxy in front of DynamoDB Local: a
 * warm process pays 4 requests for a plain turn (lease, prompt, answer, release) and reads
 * no more per turn at turn 60 than at turn 2; a cold process reads the log once more. A
 * turn that outlives its lease's renewal period adds one UpdateItem per period, no more. An
 * Idempotency-Key adds its claim and its answer (6), and a retry with it is 1 request.
 */
import { ManualClock, waitUntil } from '@panto/core/testing';
import { DEFAULT_SERVICE_LIMITS } from '@panto/functions';
import { inject } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { sseReader, startApi, type ApiHarness } from './api-harness.js';
import { DynamoProxy } from './dynamo-proxy.js';

describe('the cost of a service turn', () => {
  let proxy: DynamoProxy;
  let warm: ApiHarness;
  let cold: ApiHarness | undefined;
  beforeAll(async () => {
    proxy = await DynamoProxy.start(inject('dynamoEndpoint'));
    warm = await startApi('turn-cost', { provider: 'offline', dynamo: localDynamoDBClient(proxy.endpoint) });
  });
  let slow: ApiHarness | undefined;
  afterAll(async () => {
    await warm?.close();
    await cold?.close();
    await slow?.close();
    await proxy?.close();
  });

  async function turn(app: ApiHarness, id: string, n: number, headers: Record<string, string> = {}): Promise<{ requests: string[]; bytes: number }> {
    proxy.resetCounts();
    const response = await app.call('alice', 'POST', `/sessions/${id}/messages`, { text: `question ${n}: ${'x'.repeat(200)}` }, headers);
    expect(response.status, await response.clone().text()).toBe(200);
    await response.json();
    return { requests: [...proxy.requests], bytes: proxy.responseBytes };
  }

  it('costs 4 requests in a warm process, with read bytes flat as the session grows; 5 when cold', async () => {
    const created = await warm.call('alice', 'POST', '/sessions', { system: 'Be brief.' });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };

    const costs = [];
    for (let n = 1; n <= 60; n++) costs.push(await turn(warm, id, n));
    // The process that created the session holds it from the start: no read of the log at all.
    for (const [i, cost] of costs.entries()) {
      expect(cost.requests, `turn ${i + 1}`).toEqual(['UpdateItem', 'TransactWriteItems', 'TransactWriteItems', 'UpdateItem']);
    }
    expect(costs[59]!.bytes).toBeLessThanOrEqual(costs[1]!.bytes * 1.5);

    // Another process (no cache) reads the whole log once, then is warm too.
    cold = await startApi('turn-cost', { provider: 'offline', dynamo: localDynamoDBClient(proxy.endpoint), aws: warm.aws });
    const first = await turn(cold, id, 61);
    expect(first.requests).toEqual(['UpdateItem', 'Query', 'TransactWriteItems', 'TransactWriteItems', 'UpdateItem']);
    expect(first.bytes).toBeGreaterThan(costs[59]!.bytes * 5);
    expect((await turn(cold, id, 62)).requests).toHaveLength(4);

    // The warm process notices what the other appended: it reads only that, and answers the whole log.
    const caughtUp = await turn(warm, id, 63);
    expect(caughtUp.requests).toEqual(['UpdateItem', 'Query', 'TransactWriteItems', 'TransactWriteItems', 'UpdateItem']);
    expect(caughtUp.bytes).toBeLessThan(first.bytes / 5);
    proxy.resetCounts();
    const read = await warm.call('alice', 'GET', `/sessions/${id}`);
    const session = (await read.json()) as { messages: { role: string }[] };
    expect(proxy.requests).toEqual(['GetItem']);
    expect(session.messages.filter((message) => message.role === 'user')).toHaveLength(63);
  });

  it('adds exactly one UpdateItem per renewal period a turn outlives (which is also its check for a stop request)', { timeout: 60_000 }, async () => {
    const clock = new ManualClock(Date.now());
    slow = await startApi('turn-cost-slow', { clock, dynamo: localDynamoDBClient(proxy.endpoint) });
    const { id } = (await (await slow.call('alice', 'POST', '/sessions', {})).json()) as { id: string };
    slow.fake.enqueue({ text: 'a short answer' }, { text: 'a long answer', pauseAfterDeltas: 1 });
    expect((await slow.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'warm up' })).status).toBe(200);
    proxy.resetCounts();
    const stream = sseReader(await slow.call('alice', 'POST', `/sessions/${id}/messages/stream`, { text: 'go slowly' }));
    await stream.until((event) => event.event === 'text-delta');
    const updates = (): number => proxy.requests.filter((operation) => operation === 'UpdateItem').length;
    for (let renewal = 1; renewal <= 3; renewal++) {
      clock.advance(DEFAULT_SERVICE_LIMITS.leaseRenewMs);
      // Done once the heartbeat has its next renewal scheduled (it does so when the answer is back).
      await waitUntil(() => updates() === 1 + renewal && clock.pending === 1, { message: `renewal ${renewal} went through`, timeoutMs: 15_000 });
    }
    slow.fake.resume();
    await stream.rest();
    expect(proxy.requests).toEqual(['UpdateItem', 'TransactWriteItems', 'UpdateItem', 'UpdateItem', 'UpdateItem', 'TransactWriteItems', 'UpdateItem']);
  });

  it('costs a warm process 4 requests for a turn with parent_id, and 3 for a leaf switch', async () => {
    const created = await warm.call('alice', 'POST', '/sessions', { system: 'Be brief.' });
    const { id } = (await created.json()) as { id: string };
    await turn(warm, id, 1);
    const answer = ((await (await warm.call('alice', 'GET', `/sessions/${id}`)).json()) as { messages: { id: string }[] }).messages[2]!.id;
    await turn(warm, id, 2);

    proxy.resetCounts();
    const branched = await warm.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'again, differently', parent_id: answer });
    expect(branched.status, await branched.clone().text()).toBe(200);
    expect(proxy.requests).toEqual(['UpdateItem', 'TransactWriteItems', 'TransactWriteItems', 'UpdateItem']);

    proxy.resetCounts();
    const switched = await warm.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: answer });
    expect(switched.status, await switched.clone().text()).toBe(200);
    expect(proxy.requests).toEqual(['UpdateItem', 'TransactWriteItems', 'UpdateItem']);
  });

  it('costs 2 writes more with an Idempotency-Key (claim, answer) and no read; a retry costs 1 request', async () => {
    const created = await warm.call('alice', 'POST', '/sessions', {});
    const { id } = (await created.json()) as { id: string };
    await turn(warm, id, 1);
    const keyed = await turn(warm, id, 2, { 'idempotency-key': 'turn-cost-2' });
    expect(keyed.requests).toEqual(['PutItem', 'UpdateItem', 'TransactWriteItems', 'TransactWriteItems', 'UpdateItem', 'UpdateItem']);
    // The retry learns the stored answer from the claim's failed condition (ALL_OLD): no GetItem.
    const retry = await turn(warm, id, 2, { 'idempotency-key': 'turn-cost-2' });
    expect(retry.requests).toEqual(['PutItem']);
  });
});
