/**
 * `DynamoSessionStore` (`@panto/aws/claude-agent-sdk`) on DynamoDB Local and s3rver: the SDK's
 * 13 `SessionStore` contracts, then what it guarantees beyond them — writers that race lose
 * nothing, a process's appends keep their call order, big entries go to S3, a resent batch is
 * stored once, and retention.
 */
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { OffloadRequiredError } from '@panto/aws';
import { DynamoSessionStore, type SessionStoreEntry } from '@panto/aws/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { countCommands, localAws, once } from './setup/aws-fixtures.js';
import { objectKeys } from './setup/aws-inspect.js';
import { sessionStoreContracts } from './support/claude-session-store-contracts.js';

const shared = once(() => localAws('claude-store'));

async function store(options: { s3?: boolean; ttlSeconds?: number; clock?: () => Date } = {}): Promise<DynamoSessionStore> {
  const { dynamo, tableName, s3, bucket } = await shared();
  return new DynamoSessionStore({
    client: dynamo,
    tableName,
    ...(options.s3 === false ? {} : { s3: { client: s3, bucket } }),
    ...(options.ttlSeconds === undefined ? {} : { ttlSeconds: options.ttlSeconds }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
}

let sessions = 0;
/** A key no other test uses. */
function freshKey(): { projectKey: string; sessionId: string } {
  return { projectKey: 'project', sessionId: `session-${process.pid}-${++sessions}` };
}

const message = (n: number, extra: Record<string, unknown> = {}): SessionStoreEntry => ({
  type: 'assistant',
  uuid: `u-${n}-${Math.random().toString(36).slice(2)}`,
  message: { content: `entry ${n}` },
  ...extra,
});

describe('DynamoSessionStore: the Claude Agent SDK SessionStore contracts', () => {
  // Every contract on a table of its own: the contracts use fixed keys, and a store has no namespace.
  sessionStoreContracts(async () => {
    const { dynamo, tableName, s3, bucket } = await localAws('claude-contract');
    return new DynamoSessionStore({ client: dynamo, tableName, s3: { client: s3, bucket } });
  });
});

describe('DynamoSessionStore beyond the contracts', () => {
  it('loses no batch when two processes append to one transcript at once, and keeps each batch whole and each process in order', async () => {
    const key = freshKey();
    const [a, b] = [await store(), await store()];
    const batches = (writer: string) => Array.from({ length: 20 }, (_, turn) => [0, 1, 2].map((i) => message(turn, { writer, turn, i })));
    await Promise.all([
      (async () => {
        for (const batch of batches('a')) await a.append(key, batch);
      })(),
      (async () => {
        for (const batch of batches('b')) await b.append(key, batch);
      })(),
    ]);
    const loaded = (await (await store()).load(key)) ?? [];
    expect(loaded).toHaveLength(120);
    for (let at = 0; at < loaded.length; at += 3) {
      const [first, second, third] = loaded.slice(at, at + 3);
      expect([first?.i, second?.i, third?.i]).toEqual([0, 1, 2]);
      expect(new Set([first?.writer, second?.writer, third?.writer]).size).toBe(1);
    }
    for (const writer of ['a', 'b'])
      expect(loaded.filter((entry) => entry.writer === writer && entry.i === 0).map((entry) => entry.turn)).toEqual([...Array(20).keys()]);
  });

  it('commits the appends one process makes without awaiting them in the order it made them', async () => {
    const key = freshKey();
    const writer = await store();
    await Promise.all(Array.from({ length: 15 }, (_, n) => writer.append(key, [message(n, { n })])));
    expect(((await writer.load(key)) ?? []).map((entry) => entry.n)).toEqual([...Array(15).keys()]);
  });

  it('sends a warm append as one request and loads a short transcript with two', async () => {
    const key = freshKey();
    const writer = await store();
    await writer.append(key, [message(0)]);
    const { dynamo } = await shared();
    const counts = countCommands(dynamo);
    await writer.append(key, [message(1), message(2)]);
    expect(Object.fromEntries(counts)).toEqual({ TransactWriteItemsCommand: 1 });
    counts.clear();
    expect(await writer.load(key)).toHaveLength(3);
    expect(Object.fromEntries(counts)).toEqual({ GetItemCommand: 1, QueryCommand: 1 });
  });

  it('stores a 500 KB entry in S3 and loads it back unchanged', async () => {
    const key = freshKey();
    const big = message(0, { toolUseResult: { stdout: 'x'.repeat(500 * 1024) } });
    const writer = await store();
    await writer.append(key, [message(1), big, message(2)]);
    const loaded = await (await store()).load(key);
    expect(loaded?.[1]).toEqual(big);
    expect(loaded).toHaveLength(3);
    expect(await objectKeys(await shared(), `offload/claude/project/${key.sessionId}/main/`)).toHaveLength(1);
  });

  it('refuses a 500 KB entry without an S3 bucket with OffloadRequiredError, writing nothing', async () => {
    const key = freshKey();
    const writer = await store({ s3: false });
    await expect(writer.append(key, [message(0), message(1, { blob: 'y'.repeat(500 * 1024) })])).rejects.toBeInstanceOf(OffloadRequiredError);
    expect(await writer.load(key)).toBeNull();
  });

  it('stores a batch the SDK sends again (after an answer it never got) once, from any process', async () => {
    const key = freshKey();
    const batch = [message(1), message(2)];
    await (await store()).append(key, [message(0)]);
    await (await store()).append(key, batch);
    await (await store()).append(key, batch);
    expect((await (await store()).load(key))?.map((entry) => entry.uuid)).toEqual([expect.any(String), batch[0]!.uuid, batch[1]!.uuid]);
  });

  it('appends a repeated batch of entries without ids each time', async () => {
    const key = freshKey();
    const writer = await store();
    const title = { type: 'custom-title', customTitle: 'T' };
    await writer.append(key, [title]);
    await writer.append(key, [title]);
    expect(await writer.load(key)).toEqual([title, title]);
  });

  it('loads a transcript of several megabytes across Query pages', async () => {
    const key = freshKey();
    const writer = await store();
    for (let batch = 0; batch < 12; batch++)
      await writer.append(
        key,
        Array.from({ length: 30 }, (_, i) => message(batch * 30 + i, { pad: 'p'.repeat(10_000) })),
      );
    const loaded = (await (await store()).load(key)) ?? [];
    expect(loaded).toHaveLength(360);
    expect(loaded.map((entry) => (entry.message as { content: string }).content)).toEqual(Array.from({ length: 360 }, (_, n) => `entry ${n}`));
  });

  it('deletes the S3 objects of a deleted transcript', async () => {
    const key = freshKey();
    const writer = await store();
    await writer.append({ ...key, subpath: 'subagents/agent-1' }, [message(0, { blob: 'z'.repeat(400 * 1024) })]);
    const aws = await shared();
    expect(await objectKeys(aws, `offload/claude/project/${key.sessionId}/`)).toHaveLength(1);
    await writer.delete(key);
    expect(await objectKeys(aws, `offload/claude/project/${key.sessionId}/`)).toEqual([]);
    expect(await writer.listSubkeys(key)).toEqual([]);
  });

  it('keeps each batch ttlSeconds after its append: an idle transcript is gone, an active one loses only what is older', async () => {
    const key = freshKey();
    let now = Date.parse('2027-01-01T00:00:00Z');
    const writer = await store({ ttlSeconds: 3600, clock: () => new Date(now) });
    await writer.append(key, [message(0, { n: 0 })]);
    now += 1800_000;
    await writer.append(key, [message(1, { n: 1 })]);
    now += 2400_000;
    expect((await writer.load(key))?.map((entry) => entry.n)).toEqual([1]);
    expect((await writer.listSessions('project')).map((session) => session.sessionId)).toContain(key.sessionId);
    // DynamoDB's TTL deletes the expired item; a store made without ttlSeconds reads what is left.
    const { dynamo, tableName } = await shared();
    await dynamo.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: { S: `CLAUDE#project#${key.sessionId}` }, sk: { S: 'E##000000000000' } } }));
    expect((await (await store({ clock: () => new Date(now) })).load(key))?.map((entry) => entry.n)).toEqual([1]);
    now += 3600_000;
    expect(await writer.load(key)).toBeNull();
    expect((await writer.listSessions('project')).map((session) => session.sessionId)).not.toContain(key.sessionId);
  });

  it('refuses a key the SDK would never send with a TypeError, writing nothing', async () => {
    const writer = await store();
    await expect(writer.append({ projectKey: '', sessionId: 's' }, [message(0)])).rejects.toBeInstanceOf(TypeError);
    await expect(writer.append({ projectKey: 'p', sessionId: 's', subpath: '' }, [message(0)])).rejects.toBeInstanceOf(TypeError);
  });
});
