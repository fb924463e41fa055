/**
 * What a service turn costs DynamoDB, counted by a proxy in front of DynamoDB Local: a
 * warm process pays 2 requests for a plain turn (the prompt's append, which takes the lease,
 * and the answer's, which gives it up), flat from turn 2 to turn 100, and one more per tool
 * round; a cold process reads the log once more (3). A process whose cache is behind pays a
 * refused write and a read of what is new. A turn that outlives its lease's renewal period
 * adds one UpdateItem per period, no more (and its answer so far, once a second while the model
 * writes, one PutItem each). An Idempotency-Key adds its claim and its answer,
 * and a retry with it is 1 request.
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
  let tools: ApiHarness | undefined;
  afterAll(async () => {
    await tools?.close();
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

  it('costs 2 requests in a warm process, flat from turn 2 to turn 100 in requests and read bytes; 3 when cold', { timeout: 120_000 }, async () => {
    const created = await warm.call('alice', 'POST', '/sessions', { system: 'Be brief.' });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };

    const costs = [];
    for (let n = 1; n <= 100; n++) costs.push(await turn(warm, id, n));
    // The process that created the session holds it from the start: no read at all, no lease request of its own.
    for (const [i, cost] of costs.entries()) {
      expect(cost.requests, `turn ${i + 1}`).toEqual(['TransactWriteItems', 'TransactWriteItems']);
    }
    expect(costs[99]!.bytes).toBeLessThanOrEqual(costs[1]!.bytes * 1.5);

    // Another process (no cache) reads META and the whole log once, then is warm too.
    cold = await startApi('turn-cost', { provider: 'offline', dynamo: localDynamoDBClient(proxy.endpoint), aws: warm.aws });
    const first = await turn(cold, id, 101);
    expect(first.requests).toEqual(['Query', 'TransactWriteItems', 'TransactWriteItems']);
    expect(first.bytes).toBeGreaterThan(costs[99]!.bytes * 5);
    expect((await turn(cold, id, 102)).requests).toEqual(['TransactWriteItems', 'TransactWriteItems']);

    // The warm process's cache is behind what the other appended: its first write is refused
    // (nothing written), it reads only what is new, and answers on the whole log.
    const caughtUp = await turn(warm, id, 103);
    expect(caughtUp.requests).toEqual(['TransactWriteItems', 'Query', 'TransactWriteItems', 'TransactWriteItems']);
    expect(caughtUp.bytes).toBeLessThan(first.bytes / 5);
    proxy.resetCounts();
    const read = await warm.call('alice', 'GET', `/sessions/${id}`);
    const session = (await read.json()) as { messages: { role: string }[] };
    expect(proxy.requests).toEqual(['GetItem']);
    expect(session.messages.filter((message) => message.role === 'user')).toHaveLength(103);
  });

  it('costs 3 requests for a turn with one tool round, and a streamed turn the same as a plain one', async () => {
    tools ??= await startApi('turn-cost-tools', { dynamo: localDynamoDBClient(proxy.endpoint) });
    const { id } = (await (await tools.call('alice', 'POST', '/sessions', {})).json()) as { id: string };
    tools.fake.enqueue({ text: 'warming up' });
    await turn(tools, id, 1);
    tools.fake.enqueue({ toolCalls: [{ id: 'toolu_c', name: 'current_time', input: {} }] }, { text: 'It is now.' });
    expect((await turn(tools, id, 2)).requests).toEqual(['TransactWriteItems', 'TransactWriteItems', 'TransactWriteItems']);

    for (const n of [3, 4]) {
      tools.fake.enqueue({ text: `streamed ${n}` });
      proxy.resetCounts();
      await sseReader(await tools.call('alice', 'POST', `/sessions/${id}/messages/stream`, { text: `question ${n}` })).rest();
      expect(proxy.requests, `streamed turn ${n}`).toEqual(['TransactWriteItems', 'TransactWriteItems']);
    }
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
      await waitUntil(() => updates() === renewal && clock.pending === 1, { message: `renewal ${renewal} went through`, timeoutMs: 15_000 });
    }
    slow.fake.resume();
    await stream.rest();
    // Besides the renewals: the answer so far, stored once (the model wrote nothing more while paused).
    expect(proxy.requests.filter((operation) => operation !== 'PutItem')).toEqual([
      'TransactWriteItems',
      'UpdateItem',
      'UpdateItem',
      'UpdateItem',
      'TransactWriteItems',
    ]);
    expect(proxy.requests.filter((operation) => operation === 'PutItem')).toHaveLength(1);
  });

  it('costs a warm process 2 requests for a turn with parent_id, and 3 for a leaf switch', async () => {
    const created = await warm.call('alice', 'POST', '/sessions', { system: 'Be brief.' });
    const { id } = (await created.json()) as { id: string };
    await turn(warm, id, 1);
    const answer = ((await (await warm.call('alice', 'GET', `/sessions/${id}`)).json()) as { messages: { id: string }[] }).messages[2]!.id;
    await turn(warm, id, 2);

    proxy.resetCounts();
    const branched = await warm.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'again, differently', parent_id: answer });
    expect(branched.status, await branched.clone().text()).toBe(200);
    expect(proxy.requests).toEqual(['TransactWriteItems', 'TransactWriteItems']);

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
    expect(keyed.requests).toEqual(['PutItem', 'TransactWriteItems', 'TransactWriteItems', 'UpdateItem']);
    // The retry learns the stored answer from the claim's failed condition (ALL_OLD): no GetItem.
    const retry = await turn(warm, id, 2, { 'idempotency-key': 'turn-cost-2' });
    expect(retry.requests).toEqual(['PutItem']);
  });
});
