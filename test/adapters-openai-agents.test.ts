/**
 * `DynamoSession` (`@panto/aws/openai-agents`) on DynamoDB Local and s3rver: the documented
 * behaviours of the OpenAI Agents SDK's `Session` (run against the SDK's `MemorySession`
 * too), then what it guarantees beyond them — two writers lose nothing, big items go to S3,
 * popping and clearing leave nothing behind, and retention.
 */
import { OffloadRequiredError } from '@panto/aws';
import { DynamoSession } from '@panto/aws/openai-agents';
import { type AgentInputItem, MemorySession } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { countCommands, localAws, once } from './setup/aws-fixtures.js';
import { objectKeys } from './setup/aws-inspect.js';
import { sessionBehaviours, turnItems } from './support/openai-session-behaviours.js';

const aws = once(() => localAws('openai-session'));

async function session(options: { sessionId?: string; s3?: boolean; ttlSeconds?: number; clock?: () => Date } = {}): Promise<DynamoSession> {
  const { dynamo, tableName, s3, bucket } = await aws();
  return new DynamoSession({
    client: dynamo,
    tableName,
    ...(options.s3 === false ? {} : { s3: { client: s3, bucket } }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.ttlSeconds === undefined ? {} : { ttlSeconds: options.ttlSeconds }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
}

let made = 0;
const freshId = () => `chat-${process.pid}-${++made}`;

describe('the OpenAI Agents Session behaviours, on the SDK’s MemorySession', () => {
  sessionBehaviours(async (sessionId) => new MemorySession(sessionId === undefined ? {} : { sessionId }));
});

describe('the OpenAI Agents Session behaviours, on DynamoSession', () => {
  // A fixed id names the same session in every test: each test that passes one gets a fresh table.
  sessionBehaviours(async (sessionId) => {
    if (sessionId === undefined) return session();
    const { dynamo, tableName } = await localAws('openai-session-id');
    return new DynamoSession({ client: dynamo, tableName, sessionId });
  });
});

describe('DynamoSession beyond the documented behaviours', () => {
  it('loses no item when two runners add to one session at once', async () => {
    const sessionId = freshId();
    const [a, b] = [await session({ sessionId }), await session({ sessionId })];
    await Promise.all([
      (async () => {
        for (let turn = 0; turn < 20; turn++) await a.addItems(turnItems(turn));
      })(),
      (async () => {
        for (let turn = 100; turn < 120; turn++) await b.addItems(turnItems(turn));
      })(),
    ]);
    const items = await (await session({ sessionId })).getItems();
    expect(items).toHaveLength(160);
    for (let at = 0; at < items.length; at += 4)
      expect(items.slice(at, at + 4)).toEqual(turnItems(Number((items[at] as { content: string }).content.split(' ')[1])));
  });

  it('sends a warm addItems as one request', async () => {
    const writer = await session({ sessionId: freshId() });
    await writer.addItems(turnItems(0));
    const counts = countCommands((await aws()).dynamo);
    await writer.addItems(turnItems(1));
    expect(Object.fromEntries(counts)).toEqual({ TransactWriteItemsCommand: 1 });
  });

  it('stores a 500 KB item in S3, returns it unchanged, and pops it leaving no object behind', async () => {
    const sessionId = freshId();
    const big = {
      type: 'function_call_result',
      callId: 'c',
      name: 'read',
      status: 'completed',
      output: { type: 'text', text: 'b'.repeat(500 * 1024) },
    } as AgentInputItem;
    const writer = await session({ sessionId });
    await writer.addItems([...turnItems(0), big]);
    expect((await (await session({ sessionId })).getItems()).at(-1)).toEqual(big);
    const local = await aws();
    expect(await objectKeys(local, `offload/openai/${sessionId}/`)).toHaveLength(1);
    expect(await writer.popItem()).toEqual(big);
    expect(await objectKeys(local, `offload/openai/${sessionId}/`)).toEqual([]);
    expect(await writer.getItems()).toEqual(turnItems(0));
  });

  it('refuses a 500 KB item without an S3 bucket with OffloadRequiredError, adding nothing', async () => {
    const writer = await session({ s3: false });
    await expect(writer.addItems([{ role: 'user', content: 'x'.repeat(500 * 1024) }])).rejects.toBeInstanceOf(OffloadRequiredError);
    expect(await writer.getItems()).toEqual([]);
  });

  it('pops only the item it saw last: a pop racing an add removes one of them, never both, and loses nothing else', async () => {
    const sessionId = freshId();
    const [a, b] = [await session({ sessionId }), await session({ sessionId })];
    await a.addItems(turnItems(0));
    const [popped] = await Promise.all([a.popItem(), b.addItems(turnItems(1))]);
    const items = await (await session({ sessionId })).getItems();
    expect(items).toHaveLength(7);
    expect([...items, popped]).toEqual(expect.arrayContaining([...turnItems(0), ...turnItems(1)]));
  });

  it('deletes the items and S3 objects of a cleared session', async () => {
    const sessionId = freshId();
    const writer = await session({ sessionId });
    await writer.addItems([{ role: 'user', content: 'y'.repeat(400 * 1024) }, ...turnItems(0)]);
    await writer.clearSession();
    expect(await objectKeys(await aws(), `offload/openai/${sessionId}/`)).toEqual([]);
    expect(await (await session({ sessionId })).getItems()).toEqual([]);
  });

  it('returns file data given as bytes as bytes', async () => {
    const writer = await session();
    const item = { role: 'user', content: [{ type: 'input_file', file: new Uint8Array([1, 2, 3, 250]) }] } as unknown as AgentInputItem;
    await writer.addItems([item]);
    const [back] = (await writer.getItems()) as unknown as Array<{ content: Array<{ file: Uint8Array }> }>;
    expect(back?.content[0]?.file).toEqual(new Uint8Array([1, 2, 3, 250]));
  });

  it('reads only the newest items for getItems(limit), from a long session', async () => {
    const sessionId = freshId();
    const writer = await session({ sessionId });
    for (let turn = 0; turn < 30; turn++) await writer.addItems(turnItems(turn));
    const reader = await session({ sessionId });
    const counts = countCommands((await aws()).dynamo);
    expect(await reader.getItems(2)).toEqual(turnItems(29).slice(2));
    expect(counts.get('QueryCommand')).toBe(1);
  });

  it('keeps each batch of items ttlSeconds after it was added', async () => {
    let now = Date.parse('2027-01-01T00:00:00Z');
    const writer = await session({ ttlSeconds: 60, clock: () => new Date(now) });
    await writer.addItems(turnItems(0));
    now += 45_000;
    await writer.addItems(turnItems(1));
    now += 30_000;
    expect(await writer.getItems()).toEqual(turnItems(1));
    now += 60_000;
    expect(await writer.getItems()).toEqual([]);
  });
});
