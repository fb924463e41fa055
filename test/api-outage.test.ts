/**
 * The HTTP app when its backends fail: DynamoDB or S3 on a closed port (connection refused),
 * and DynamoDB behind a proxy that drops every request for a while (the store goes away in
 * the middle of a turn and comes back). An outage is a 503 `unavailable` with Retry-After,
 * logged as one outage line — not a 500 and not a defect — and a turn's lease is released
 * as soon as the store answers again.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { localS3Client } from '../scripts/local/s3-local.js';
import { parseSSE, snapshot, startApi, type ApiHarness } from './api-harness.js';
import { DynamoProxy } from './dynamo-proxy.js';

interface ErrorJson {
  error: { code: string; message: string };
}

/** A port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function expectUnavailable(response: Response, what: string): Promise<void> {
  const text = await response.text();
  expect(response.status, `${what}: ${text}`).toBe(503);
  expect(response.headers.get('retry-after'), what).toBe('5');
  expect((JSON.parse(text) as ErrorJson).error, what).toEqual({ code: 'unavailable', message: 'the session store is unavailable; retry later' });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('DynamoDB refusing connections', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi('outage-dynamo', { dynamo: localDynamoDBClient(`http://127.0.0.1:${await closedPort()}`) });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers every route with 503 unavailable and Retry-After, logs outage lines and no defect, and stores nothing', async () => {
    const id = '0190a1b2-0000-7000-8000-000000000001';
    const before = await snapshot(api.aws);
    const requests: Array<[string, string, unknown]> = [
      ['GET', '/sessions', undefined],
      ['POST', '/sessions', {}],
      ['GET', `/sessions/${id}`, undefined],
      ['POST', `/sessions/${id}/messages`, { text: 'hi' }],
      ['POST', `/sessions/${id}/messages/stream`, { text: 'hi' }],
      ['POST', `/sessions/${id}/compact`, {}],
      ['POST', `/sessions/${id}/export`, {}],
      ['DELETE', `/sessions/${id}`, undefined],
    ];
    for (const [method, path, body] of requests) await expectUnavailable(await api.call('alice', method, path, body), `${method} ${path}`);
    expect(api.logged).toEqual([]);
    expect(api.outages).toHaveLength(requests.length);
    for (const line of api.outages) expect(line).toMatch(/^(GET|POST|DELETE) \/sessions\S*: backend unavailable: ECONNREFUSED$/);
    expect(await snapshot(api.aws)).toEqual(before);
  });
});

describe('S3 refusing connections', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi('outage-s3', { s3: localS3Client(`http://127.0.0.1:${await closedPort()}`) });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers an export with 503 unavailable and Retry-After, and logs it as an outage', async () => {
    const created = await api.call('alice', 'POST', '/sessions', { system: 'exported during an outage' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await expectUnavailable(await api.call('alice', 'POST', `/sessions/${id}/export`), 'POST /export');
    expect(api.logged).toEqual([]);
    expect(api.outages).toEqual([expect.stringMatching(/^POST \/sessions\/\S+\/export: backend unavailable: ECONNREFUSED$/)]);
  });
});

describe('DynamoDB going away mid-turn and coming back', () => {
  let proxy: DynamoProxy;
  let api: ApiHarness;
  beforeAll(async () => {
    proxy = await DynamoProxy.start(inject('dynamoEndpoint'));
    // One attempt per call: the retries under test are the service's, not the SDK's.
    api = await startApi('outage-flaky', { dynamo: localDynamoDBClient(proxy.endpoint, { maxAttempts: 1 }) });
  });
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
  });

  /** Resolves once the model has been asked about `prompt` (the prompt is stored, the lease held). */
  async function providerCalledWith(prompt: string): Promise<void> {
    while (!api.fake.requests.some((request) => request.rawBody.includes(JSON.stringify(prompt)))) await sleep(5);
  }

  /**
   * Takes the store down once the model is thinking about `prompt`, and brings it back when
   * the first lease release is dropped: the turn's reply cannot be stored, its first release
   * fails, and the store answers again before the next attempt.
   */
  async function outageDuring(prompt: string): Promise<void> {
    await providerCalledWith(prompt);
    proxy.dropped.length = 0;
    proxy.onDrop = (operation) => {
      if (operation === 'UpdateItem') proxy.up();
    };
    proxy.down();
  }

  it('answers the turn 503 with Retry-After, releases the lease once the store is back, and the next turn runs', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ text: 'lost with the store', delayMs: 200 }, { text: 'after the outage' });
    const turn = api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'during the outage' });
    await outageDuring('during the outage');
    await expectUnavailable(await turn, 'the turn');
    expect(proxy.dropped).toContain('TransactWriteItems');
    expect(proxy.dropped.at(-1)).toBe('UpdateItem');

    const next = await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'once it is back' });
    expect(next.status, await next.clone().text()).toBe(200);
    expect(api.logged).toEqual([]);
    expect(api.outages).toContainEqual(expect.stringMatching(/^POST \/sessions\/\S+\/messages: backend unavailable: ECONNRESET$/));
  });

  it('ends a streamed turn with the same status and code, and releases its lease once the store is back', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ text: 'lost with the store', delayMs: 200 }, { text: 'after the outage' });
    const turn = api.call('alice', 'POST', `/sessions/${id}/messages/stream`, { text: 'streamed during the outage' });
    await outageDuring('streamed during the outage');
    const response = await turn;
    expect(response.status).toBe(200);
    const events = parseSSE(await response.text());
    expect(events.at(-1)).toEqual({
      event: 'end',
      data: {
        incomplete: true,
        status: 503,
        error: { code: 'unavailable', message: 'the session store is unavailable; retry later' },
        retry_after: 5,
      },
    });
    expect(proxy.dropped.at(-1)).toBe('UpdateItem');

    const next = await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'once it is back' });
    expect(next.status, await next.clone().text()).toBe(200);
    expect(api.logged).toEqual([]);
  });
});
