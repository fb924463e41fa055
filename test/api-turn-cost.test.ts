/**
 * What a service turn costs DynamoDB, counted by a proxy in front of DynamoDB Local: a
 * warm process pays 4 requests for a plain turn (lease, prompt, answer, release) and reads
 * no more per turn at turn 60 than at turn 2; a cold process reads the log once more. An
 * Idempotency-Key adds its claim and its answer (6), and a retry with it is 1 request.
 */
import { inject } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { startApi, type ApiHarness } from './api-harness.js';
import { DynamoProxy } from './dynamo-proxy.js';

describe('the cost of a service turn', () => {
  let proxy: DynamoProxy;
  let warm: ApiHarness;
  let cold: ApiHarness | undefined;
  beforeAll(async () => {
    proxy = await DynamoProxy.start(inject('dynamoEndpoint'));
    warm = await startApi('turn-cost', { provider: 'offline', dynamo: localDynamoDBClient(proxy.endpoint) });
  });
  afterAll(async () => {
    await warm?.close();
    await cold?.close();
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
