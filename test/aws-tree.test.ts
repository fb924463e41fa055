/**
 * The session tree on DynamoDB Local and s3rver: branches, switches and forks give the same
 * bytes as the filesystem store; a switch is one conditional write like an append; fork,
 * export and import keep the tree.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoStore, exportSession, importSession, SessionCache } from '@panto/aws';
import { FSJSONLStore, type DiskMessage, type SessionEntry, type SessionStore } from '@panto/core';
import { RecordFactory, usage } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countCommands, dynamoFailingOn, localAws, once, type LocalAws } from './setup/aws-fixtures.js';
import { objectBytes, objectKeys } from './setup/aws-inspect.js';

const aws = once(() => localAws('tree'));
const OWNER = 'owner-tree';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panto-tree-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A frozen clock and a counter of ids, the same for both stores. */
function deterministic(prefix: string): { clock: () => Date; ids: () => string } {
  let n = 0;
  return { clock: () => new Date('2026-04-01T10:00:00.000Z'), ids: () => `${prefix}-${++n}` };
}

/** Two turns, a branch at the first answer (with a 400 KB, offloaded tool result), then a switch back. */
async function grow(store: SessionStore, f: RecordFactory): Promise<{ a1: DiskMessage; a2: DiskMessage; big: DiskMessage }> {
  const q1 = f.user('q1');
  const a1 = f.assistant('a1');
  await store.appendMessages([q1, a1]);
  const q2 = f.user('q2');
  const a2 = f.assistant('a2');
  await store.appendMessages([q2, a2]);
  await store.loadConversation({ at: a1.id });
  const q2b = f.user('q2b');
  const call = f.message({
    role: 'assistant',
    content: [{ type: 'tool_call', id: 'big', name: 'read', input: {} }],
    provider: 'scripted',
    model: 'scripted-1',
    usage: usage(1, 1),
    stop_reason: 'tool_use',
  });
  const big = f.message({ role: 'tool_result', tool_call_id: 'big', tool_name: 'read', content: 'ü'.repeat(200 * 1024), is_error: false });
  await store.appendMessages([q2b, call, big, f.assistant('a2b')]);
  await store.switchLeaf(a2.id);
  return { a1, a2, big };
}

async function exported(env: LocalAws, sessionId: string, owner = OWNER): Promise<string> {
  const { key } = await exportSession({ dynamo: env.dynamo, tableName: env.tableName, s3: env.s3, bucket: env.bucket, owner, sessionId });
  return (await objectBytes(env, key)).toString('utf8');
}

/** An entry as its line says it, without the framing (`batch_size`). */
const content = (entry: SessionEntry): unknown => {
  const { batch_size: _b, ...rest } = entry as SessionEntry & { batch_size?: number };
  return rest;
};

describe('the session tree in DynamoDB', () => {
  it("gives byte for byte the filesystem store's file for the same branches, switch and fork", async () => {
    const env = await aws();
    const s3 = { client: env.s3, bucket: env.bucket };
    const dynamoIds = deterministic('same');
    const dynamo = await DynamoStore.create({
      client: env.dynamo,
      tableName: env.tableName,
      owner: OWNER,
      s3,
      cwd: '/w',
      sessionId: 'tree-bytes',
      clock: dynamoIds.clock,
    });
    const dynamoHandle = await DynamoStore.open({
      client: env.dynamo,
      tableName: env.tableName,
      owner: OWNER,
      s3,
      sessionId: dynamo.sessionId(),
      ...dynamoIds,
    });
    const fs = await FSJSONLStore.create(dir, { cwd: '/w', sessionId: 'tree-bytes', ...deterministic('same') });

    const { a1 } = await grow(dynamoHandle, new RecordFactory('t'));
    await grow(fs, new RecordFactory('t'));
    const fsBytes = await readFile(fs.getSessionFile(), 'utf8');
    expect(await exported(env, dynamo.sessionId())).toBe(fsBytes);
    expect(fsBytes.split('\n').at(-2)).toBe('{"type":"leaf","id":"same-1","parent_id":"t-000004","timestamp":"2026-04-01T10:00:00.000Z"}');

    const dynamoFork = await dynamoHandle.fork('t-000008');
    const fsFork = await fs.fork('t-000008');
    expect(dynamoFork.sessionId()).toBe('same-2');
    expect(await exported(env, dynamoFork.sessionId())).toBe(await readFile(fsFork.getSessionFile(), 'utf8'));
    const forked = await dynamoFork.loadTree();
    expect(forked.entries.map((entry) => entry.id)).toEqual(['t-000001', 't-000002', 't-000005', 't-000006', 't-000007', 't-000008']);
    expect((await dynamoFork.loadConversation()).conversation.length).toBe(6);
    expect(a1.id).toBe('t-000002');
  });

  it("round trip: fork, export, import — the tree is the same, and the import keeps the header's id while it is free", async () => {
    const env = await aws();
    const s3 = { client: env.s3, bucket: env.bucket };
    const store = await DynamoStore.create({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3 });
    const { a2 } = await grow(store, new RecordFactory('r'));
    const fork = await store.fork(a2.id);
    const text = await exported(env, fork.sessionId());

    // Into another table (a fresh deployment): the id is free, so it is kept.
    const other = await localAws('tree-import');
    const elsewhere = await importSession({
      dynamo: other.dynamo,
      tableName: other.tableName,
      owner: 'someone',
      s3: { client: other.s3, bucket: other.bucket },
      source: { body: text },
      keepSessionId: true,
    });
    expect(elsewhere.sessionId()).toBe(fork.sessionId());
    // Into the same table: the id is taken, so the import gets a new one, and the fork stays whole.
    const again = await importSession({ dynamo: env.dynamo, tableName: env.tableName, owner: OWNER, s3, source: { body: text }, keepSessionId: true });
    expect(again.sessionId()).not.toBe(fork.sessionId());

    const [forkTree, importedTree] = await Promise.all([fork.loadTree(), again.loadTree()]);
    expect(importedTree.entries.map(content)).toEqual(forkTree.entries.map(content));
    expect(importedTree.activeLeaf).toBe(forkTree.activeLeaf);
    expect(importedTree.leaves.map((entry) => entry.id)).toEqual(forkTree.leaves.map((entry) => entry.id));
    expect(await exported(env, again.sessionId())).toBe(text.replace(fork.sessionId(), again.sessionId()));
    expect(await exported(env, fork.sessionId())).toBe(text);
  });

  it('imports a whole tree with its switches, and refuses nothing of another session whose id it names', async () => {
    const env = await aws();
    const s3 = { client: env.s3, bucket: env.bucket };
    const store = await DynamoStore.create({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3 });
    const { big } = await grow(store, new RecordFactory('c'));
    const text = await exported(env, store.sessionId());
    const offloadsBefore = await objectKeys(env, `offload/${store.sessionId()}/`);
    expect(offloadsBefore).toHaveLength(1);

    // Same lines, same id: the big line's offload would have the key the original's has.
    const imported = await importSession({ dynamo: env.dynamo, tableName: env.tableName, owner: 'thief', s3, source: { body: text }, keepSessionId: true });
    expect(imported.sessionId()).not.toBe(store.sessionId());
    expect(await objectKeys(env, `offload/${store.sessionId()}/`)).toEqual(offloadsBefore);
    const reread = await DynamoStore.open({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3, sessionId: store.sessionId() });
    expect((await reread.loadTree()).get(big.id)).toMatchObject({ message: { role: 'tool_result' } });
    expect((await imported.loadTree()).activeLeaf).toBe((await reread.loadTree()).activeLeaf);
  });

  it("never writes into a session of another owner whose id an import's header names, even when its clean-up would fail", async () => {
    const env = await aws();
    const s3 = { client: env.s3, bucket: env.bucket };
    // The victim's session is shorter than the log that names it: one batch, one entry item (E#0).
    const victim = await DynamoStore.create({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3 });
    const f = new RecordFactory('v');
    await victim.appendMessages([f.user('mine'), f.assistant('yes')]);
    const longer = await DynamoStore.create({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3 });
    const g = new RecordFactory('w');
    for (let i = 0; i < 4; i++) await longer.appendMessages([g.user(`q${i}`), g.assistant(`a${i}`)]);
    const text = (await exported(env, longer.sessionId())).replace(longer.sessionId(), victim.sessionId());

    // An importer whose clean-up of a failed attempt does not get through (a crash, an outage).
    const importer = dynamoFailingOn('BatchWriteItemCommand');
    const imported = await importSession({ dynamo: importer, tableName: env.tableName, owner: 'thief', s3, source: { body: text }, keepSessionId: true });
    expect(imported.sessionId()).not.toBe(victim.sessionId());
    expect((await imported.loadConversation()).conversation.length).toBe(8);

    // The victim's session still takes its next append (no item of the import sits where it goes).
    const reopened = await DynamoStore.open({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3, sessionId: victim.sessionId() });
    await reopened.appendMessages([f.user('still mine'), f.assistant('yes')]);
    expect((await reopened.loadConversation()).conversation.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('switches the leaf with one conditional transaction when the cache holds the session, and sets next_parent by the rule', async () => {
    const env = await aws();
    const s3 = { client: env.s3, bucket: env.bucket };
    const cache = new SessionCache();
    const f = new RecordFactory('m');
    const store = await DynamoStore.create({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3, cache });
    const a1 = f.assistant('a1');
    const dangling = f.user('never answered');
    await store.appendMessages([f.user('q1'), a1]);
    await store.appendMessages([dangling]);
    await store.loadConversation({ at: a1.id });
    await store.appendMessages([f.user('q2'), f.assistant('a2')]);

    const { store: leased, lease } = await DynamoStore.lease({
      client: env.dynamo,
      tableName: env.tableName,
      owner: OWNER,
      s3,
      cache,
      sessionId: store.sessionId(),
      leaseMs: 10_000,
    });
    const counts = countCommands(env.dynamo);
    const switched = await leased.switchLeaf(dangling.id);
    expect([...counts.entries()]).toEqual([['TransactWriteItemsCommand', 1]]);
    await lease.release();
    expect(switched.danglingUser).toBe('never answered');

    const { Item: meta } = await env.dynamo.send(
      new GetItemCommand({ TableName: env.tableName, Key: { pk: { S: `SESSION#${store.sessionId()}` }, sk: { S: 'META' } }, ConsistentRead: true }),
    );
    expect(meta?.next_parent?.S).toBe(a1.id);
    expect(meta?.entry_count?.N).toBe('6');
    expect(meta?.head?.S).toBe(leased.metadata().head);
    // A handle that only read META appends where the rule says: as the dangling prompt's sibling.
    const fresh = await DynamoStore.open({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3, sessionId: store.sessionId() });
    const resent = f.user('answered at last');
    await fresh.appendMessages([resent]);
    expect((await fresh.loadTree()).get(resent.id)?.parent_id).toBe(a1.id);
  });
});
