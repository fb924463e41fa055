/**
 * Cold sessions archived to S3 and restored when opened, on DynamoDB Local and s3rver: the
 * sweeper's archive is the export byte for byte and leaves no entry item behind; opening the
 * session brings back the same entries (same ids, same bytes) and a turn goes on; a sweeper
 * that dies at any step loses nothing and the next sweep finishes; sweeps and restores that
 * race do their work once.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteItemCommand, DescribeTableCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  acquireSessionLease,
  backfillActivityIndex,
  createTable,
  deleteSession,
  DynamoStore,
  exportSession,
  listOwnerSessions,
  purgeSessionItems,
  restoreSession,
  SessionCache,
  SessionConflictError,
  sweepColdSessions,
  type ArchiveStep,
  type SessionMetadata,
} from '@panto/aws';
import { SessionNotFoundError, type DiskMessage } from '@panto/core';
import { RecordFactory, waitUntil } from '@panto/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { localDynamoDBClient, startDynamoDBLocal } from '../scripts/local/dynamodb-local.js';
import { countCommands, localAws, type LocalAws } from './setup/aws-fixtures.js';
import { objectBytes, objectKeys, partitionSks } from './setup/aws-inspect.js';

const OWNER = 'owner-cold';

/** A little while ahead: every session made so far counts as cold. */
const soon = (): Date => new Date(Date.now() + 1000);

function conversation(prefix: string, turns: number, big = false): DiskMessage[][] {
  const f = new RecordFactory(prefix);
  const batches: DiskMessage[][] = [[f.message({ role: 'system', content: 'Be brief.', mode: 'replace' })]];
  for (let n = 1; n <= turns; n++) {
    batches.push([f.user(`question ${n}`)]);
    if (big && n === 2) {
      batches.push([
        f.message({
          role: 'assistant',
          content: [{ type: 'tool_call', id: `c${n}`, name: 'read', input: { path: 'big' } }],
          provider: 'scripted',
          model: 'scripted-1',
          stop_reason: 'tool_use',
          usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
        }),
        f.message({ role: 'tool_result', tool_call_id: `c${n}`, tool_name: 'read', content: 'ü'.repeat(250_000), is_error: false }),
      ]);
    }
    batches.push([f.assistant(`answer ${n}`)]);
  }
  return batches;
}

async function sessionWith(env: LocalAws, batches: DiskMessage[][]): Promise<DynamoStore> {
  const store = await DynamoStore.create({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3: { client: env.s3, bucket: env.bucket }, cwd: '/w' });
  for (const batch of batches) await store.appendMessages(batch);
  return store;
}

async function exported(env: LocalAws, sessionId: string): Promise<Buffer> {
  const result = await exportSession({ dynamo: env.dynamo, tableName: env.tableName, s3: env.s3, bucket: env.bucket, owner: OWNER, sessionId });
  return objectBytes(env, result.key);
}

function open(env: LocalAws, sessionId: string): Promise<DynamoStore> {
  return DynamoStore.open({ client: env.dynamo, tableName: env.tableName, owner: OWNER, sessionId, s3: { client: env.s3, bucket: env.bucket } });
}

function sweep(env: LocalAws, options: { afterStep?: (sessionId: string, step: ArchiveStep) => void | Promise<void>; claimMs?: number } = {}) {
  return sweepColdSessions({ client: env.dynamo, tableName: env.tableName, s3: { client: env.s3, bucket: env.bucket }, cutoff: soon(), ...options });
}

describe('archiving cold sessions and restoring them', () => {
  it('archives a cold session to the bytes of its export, leaves only META, lists it archived, and restores it on open', async () => {
    const env = await localAws('cold');
    const store = await sessionWith(env, conversation('a', 3, true));
    const id = store.sessionId();
    const before = await exported(env, id);
    const loadedBefore = await (await open(env, id)).loadConversation();

    const result = await sweep(env);
    expect(result).toMatchObject({ archived: 1, failed: [], complete: true });
    expect(await partitionSks(env, id)).toEqual(['META']);
    expect(await objectKeys(env, `offload/${id}/`)).toEqual([]);
    const [archiveKey] = await objectKeys(env, `archive/${id}/`);
    expect(archiveKey).toMatch(new RegExp(`^archive/${id}/\\d{8}T\\d{6}\\.\\d{3}Z-9-entries\\.jsonl$`));
    expect((await objectBytes(env, archiveKey!)).equals(before)).toBe(true);

    const { sessions } = await listOwnerSessions({ client: env.dynamo, tableName: env.tableName, owner: OWNER });
    expect(sessions).toEqual([expect.objectContaining({ id, archived: true, title: 'question 1', entryCount: 9 })]);

    const reopened = await open(env, id);
    expect(reopened.metadata()).toMatchObject({ archived: false, entryCount: 9 });
    const loaded = await reopened.loadConversation();
    expect(loaded).toEqual(loadedBefore);
    expect((await exported(env, id)).equals(before)).toBe(true);
    const f = new RecordFactory('a-more');
    await reopened.appendMessages([f.user('and one more')]);
    expect((await open(env, id)).metadata().entryCount).toBe(10);
  });

  it('reuses the archive of a restored session that nobody wrote to since, and writes a new one (dropping the old) once it grew', async () => {
    const env = await localAws('cold-reuse');
    const store = await sessionWith(env, conversation('r', 2));
    const id = store.sessionId();
    expect((await sweep(env)).outcomes).toEqual([expect.objectContaining({ sessionId: id, result: 'archived', reused: false })]);
    const [first] = await objectKeys(env, `archive/${id}/`);
    expect(
      await restoreSession({ client: env.dynamo, tableName: env.tableName, owner: OWNER, sessionId: id, s3: { client: env.s3, bucket: env.bucket } }),
    ).toEqual({ restored: true });

    // Restored, untouched: archived again without an upload.
    expect((await sweep(env)).outcomes).toEqual([expect.objectContaining({ sessionId: id, result: 'archived', reused: true })]);
    expect(await objectKeys(env, `archive/${id}/`)).toEqual([first]);
    expect(await partitionSks(env, id)).toEqual(['META']);

    // Restored and written to: a new archive, and the old one goes.
    const reopened = await open(env, id);
    await reopened.appendMessages([new RecordFactory('r2').user('more')]);
    const grown = await exported(env, id);
    expect((await sweep(env)).outcomes).toEqual([expect.objectContaining({ sessionId: id, result: 'archived', reused: false, entries: 6 })]);
    const [second] = await objectKeys(env, `archive/${id}/`);
    expect(second).not.toBe(first);
    expect(await objectKeys(env, `archive/${id}/`)).toHaveLength(1);
    expect((await objectBytes(env, second!)).equals(grown)).toBe(true);
  });

  it('leaves sessions written since the cutoff alone, and goes through the index in bounded runs', async () => {
    const env = await localAws('cold-bounded');
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await sessionWith(env, conversation(`b${i}`, 1))).sessionId());
    const past = new Date(Date.now() - 60_000);
    expect(await sweepColdSessions({ client: env.dynamo, tableName: env.tableName, s3: { client: env.s3, bucket: env.bucket }, cutoff: past })).toMatchObject({
      outcomes: [],
      complete: true,
    });
    const first = await sweepColdSessions({
      client: env.dynamo,
      tableName: env.tableName,
      s3: { client: env.s3, bucket: env.bucket },
      cutoff: soon(),
      maxSessions: 2,
    });
    expect(first).toMatchObject({ archived: 2, complete: false });
    await waitUntil(async () => (await sweep(env)).archived === 1, {
      timeoutMs: 10_000,
      intervalMs: 200,
      message: 'the third session archived by the next run',
    });
    for (const id of ids) expect(await partitionSks(env, id)).toEqual(['META']);
  });

  it('does not archive a session written to while its archive was being written, nor one a turn holds', async () => {
    const env = await localAws('cold-race');
    const written = await sessionWith(env, conversation('w', 1));
    const leased = await sessionWith(env, conversation('l', 1));
    const lease = await acquireSessionLease({ client: env.dynamo, tableName: env.tableName, owner: OWNER, sessionId: leased.sessionId(), leaseMs: 60_000 });
    const result = await sweep(env, {
      afterStep: async (sessionId, step) => {
        if (sessionId === written.sessionId() && step === 'verified') await written.appendMessages([new RecordFactory('w2').user('still here')]);
      },
    });
    expect(result.outcomes).toHaveLength(2);
    for (const outcome of result.outcomes) expect(outcome).toMatchObject({ result: 'skipped', reason: 'changed' });
    for (const store of [written, leased]) {
      expect((await partitionSks(env, store.sessionId())).length).toBeGreaterThan(1);
      expect(await objectKeys(env, `archive/${store.sessionId()}/`)).toEqual([]);
    }
    expect((await open(env, written.sessionId())).metadata()).toMatchObject({ archived: false, entryCount: 4 });
    await lease.release();
  });

  it('skips, and reports no failure for, a session a delete took from the sweeper while it archived it', async () => {
    const env = await localAws('cold-deleted');
    const store = await sessionWith(env, conversation('d', 2, true));
    const id = store.sessionId();
    const result = await sweep(env, {
      afterStep: async (sessionId, step) => {
        if (sessionId === id && step === 'marked') {
          await deleteSession({
            client: env.dynamo,
            tableName: env.tableName,
            owner: OWNER,
            sessionId: id,
            s3: { client: env.s3, bucket: env.bucket },
            exports: { client: env.s3, bucket: env.bucket },
          });
        }
      },
    });
    expect(result.failed).toEqual([]);
    expect(result.outcomes).toEqual([{ sessionId: id, result: 'skipped', reason: 'changed' }]);
    await expect(open(env, id)).rejects.toThrow(SessionNotFoundError);
  });

  it.each<[ArchiveStep, string]>([
    ['uploaded', 'items and an unverified object'],
    ['verified', 'items and a verified object'],
    ['marked', 'META archived, its items still there'],
    ['purged', 'META archived, no items, still in the index'],
    ['finished', 'the archive whole'],
  ])('loses nothing when the sweeper dies after the %s step (%s): the session opens, and the next sweep finishes', async (step) => {
    const env = await localAws('cold-crash');
    const store = await sessionWith(env, conversation(`c-${step}`, 2, true));
    const id = store.sessionId();
    const before = await exported(env, id);
    const loadedBefore = await (await open(env, id)).loadConversation();
    const crashed = await sweep(env, {
      claimMs: 500,
      afterStep: (_sessionId, at) => {
        if (at === step) throw new Error(`killed after ${at}`);
      },
    });
    expect(crashed.failed).toEqual([{ sessionId: id, error: new Error(`killed after ${step}`) }]);

    // Nothing lost: the session opens to the same conversation whatever state the crash left.
    const handle = await open(env, id);
    expect(await handle.loadConversation()).toEqual(loadedBefore);
    expect((await exported(env, id)).equals(before)).toBe(true);

    // And the next sweeps archive it whole: one archive, the export's bytes, no item left.
    await waitUntil(async () => (await sweep(env)).outcomes.some((outcome) => outcome.result === 'archived'), {
      timeoutMs: 15_000,
      intervalMs: 200,
      message: 'the session archived again',
    });
    expect(await partitionSks(env, id)).toEqual(['META']);
    const objects = await objectKeys(env, `archive/${id}/`);
    expect(objects).toHaveLength(1);
    expect((await objectBytes(env, objects[0]!)).equals(before)).toBe(true);
    expect(await (await open(env, id)).loadConversation()).toEqual(loadedBefore);
  });

  it('loses nothing when a sweeper is SIGKILLed between marking META and removing the items: an open waits out its claim and restores, the next sweep archives', {
    timeout: 60_000,
  }, async () => {
    const env = await localAws('cold-kill');
    const store = await sessionWith(env, conversation('k', 3, true));
    const id = store.sessionId();
    const before = await exported(env, id);
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@panto/source', 'test/archive-sweep-child.ts'], {
      env: {
        ...process.env,
        PANTO_TEST_DYNAMO: inject('dynamoEndpoint'),
        PANTO_TEST_S3: inject('s3Endpoint'),
        PANTO_TEST_TABLE: env.tableName,
        PANTO_TEST_BUCKET: env.bucket,
        PANTO_TEST_CLAIM_MS: '1000',
        PANTO_TEST_HANG_AFTER: 'marked',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    await waitUntil(() => out.includes(`${id} marked`), { timeoutMs: 40_000, intervalMs: 200, message: 'the child sweeper marked the session archived' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    expect(child.kill('SIGKILL')).toBe(true);
    expect(await exited).toBe('SIGKILL');
    expect((await partitionSks(env, id)).length).toBeGreaterThan(1);
    // The dead sweeper's claim holds until it lapses (1 s): an open waits for it, then restores.
    const restored = await restoreSession({
      client: env.dynamo,
      tableName: env.tableName,
      owner: OWNER,
      sessionId: id,
      s3: { client: env.s3, bucket: env.bucket },
    });
    expect(restored).toEqual({ restored: true });
    expect((await exported(env, id)).equals(before)).toBe(true);

    await waitUntil(async () => (await sweep(env)).archived === 1, { timeoutMs: 15_000, intervalMs: 200, message: 'the next sweep archived it again' });
    expect(await partitionSks(env, id)).toEqual(['META']);
    const [object] = await objectKeys(env, `archive/${id}/`);
    expect((await objectBytes(env, object!)).equals(before)).toBe(true);
    expect((await exported(env, id)).equals(before)).toBe(true);
  });

  it('archives each session once when two sweeps run at once', async () => {
    const env = await localAws('cold-twice');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await sessionWith(env, conversation(`t${i}`, 2))).sessionId());
    const [one, two] = await Promise.all([sweep(env), sweep(env)]);
    expect([...one!.failed, ...two!.failed]).toEqual([]);
    expect(one!.archived + two!.archived + one!.finished + two!.finished).toBeGreaterThanOrEqual(4);
    expect(one!.archived + two!.archived).toBe(4);
    for (const id of ids) {
      expect(await partitionSks(env, id)).toEqual(['META']);
      expect(await objectKeys(env, `archive/${id}/`)).toHaveLength(1);
    }
  });

  it('keeps the archive when two sweeps write the same object in the same millisecond: the one that lost does not delete it', async () => {
    const env = await localAws('cold-same-ms');
    const store = await sessionWith(env, conversation('m', 2));
    const id = store.sessionId();
    const before = await exported(env, id);
    const loadedBefore = await (await open(env, id)).loadConversation();
    const at = new Date();
    const [one, two] = await Promise.all([
      sweepColdSessions({ client: env.dynamo, tableName: env.tableName, s3: { client: env.s3, bucket: env.bucket }, cutoff: soon(), clock: () => at }),
      sweepColdSessions({ client: env.dynamo, tableName: env.tableName, s3: { client: env.s3, bucket: env.bucket }, cutoff: soon(), clock: () => at }),
    ]);
    expect(one!.archived + two!.archived).toBe(1);
    expect(await partitionSks(env, id)).toEqual(['META']);
    const [key, ...others] = await objectKeys(env, `archive/${id}/`);
    expect(others).toEqual([]);
    expect((await objectBytes(env, key!)).equals(before)).toBe(true);
    // The archive is whole: opening restores the session as it was.
    expect(await (await open(env, id)).loadConversation()).toEqual(loadedBefore);
  });

  it('restores once when two requests open an archived session at once; both see it whole', async () => {
    const env = await localAws('cold-open');
    const store = await sessionWith(env, conversation('o', 4, true));
    const id = store.sessionId();
    const loadedBefore = await (await open(env, id)).loadConversation();
    await sweep(env);
    const location = { client: env.s3, bucket: env.bucket };
    const results = await Promise.all(
      [1, 2, 3].map(() => restoreSession({ client: env.dynamo, tableName: env.tableName, owner: OWNER, sessionId: id, s3: location })),
    );
    expect(results.filter((result) => result.restored)).toHaveLength(1);
    await sweep(env);
    const opened = await Promise.all([open(env, id), open(env, id)]);
    for (const handle of opened) expect(await handle.loadConversation()).toEqual(loadedBefore);
  });

  it('brings an archived session back for a handle opened before it was archived: its append conflicts, a load restores it', async () => {
    const env = await localAws('cold-stale');
    const store = await sessionWith(env, conversation('s', 2));
    const id = store.sessionId();
    await sweep(env);
    await expect(store.appendMessages([new RecordFactory('s2').user('late')])).rejects.toBeInstanceOf(SessionConflictError);
    await store.loadConversation();
    await store.appendMessages([new RecordFactory('s3').user('late')]);
    expect((await open(env, id)).metadata()).toMatchObject({ archived: false, entryCount: 6 });
  });

  it("keeps a warm process's cache true across an archive and a restore: it reads on from where it was", async () => {
    const env = await localAws('cold-cache');
    const cache = new SessionCache();
    const location = { client: env.s3, bucket: env.bucket };
    const batches = conversation('w', 4, true);
    // A warm process wrote (and so caches) the first batches; another wrote the rest.
    const store = await DynamoStore.create({ client: env.dynamo, tableName: env.tableName, owner: OWNER, s3: location, cache });
    for (const batch of batches.slice(0, 3)) await store.appendMessages(batch);
    const other = await open(env, store.sessionId());
    await other.loadConversation();
    for (const batch of batches.slice(3)) await other.appendMessages(batch);
    await sweep(env);
    await restoreSession({ client: env.dynamo, tableName: env.tableName, owner: OWNER, sessionId: store.sessionId(), s3: location });

    // The warm process reads only what it lacks, from the item where its cached prefix ends.
    const dynamoCounts = countCommands(env.dynamo);
    const warm = await DynamoStore.open({ client: env.dynamo, tableName: env.tableName, owner: OWNER, sessionId: store.sessionId(), s3: location, cache });
    const loaded = await warm.loadConversation();
    expect(dynamoCounts.get('QueryCommand')).toBe(1);
    expect(loaded).toEqual(await (await open(env, store.sessionId())).loadConversation());
    expect(warm.metadata().entryCount).toBe(batches.flat().length);
  });

  it('deletes the archives with the session, and the TTL purge does too', async () => {
    const env = await localAws('cold-delete');
    const location = { client: env.s3, bucket: env.bucket };
    const deleted = await sessionWith(env, conversation('d', 1));
    const expired = await sessionWith(env, conversation('e', 1));
    await exported(env, deleted.sessionId());
    await sweep(env);
    expect(await objectKeys(env, `archive/${expired.sessionId()}/`)).toHaveLength(1);
    await deleteSession({ client: env.dynamo, tableName: env.tableName, owner: OWNER, sessionId: deleted.sessionId(), s3: location, exports: location });
    expect(await partitionSks(env, deleted.sessionId())).toEqual([]);
    expect(await objectKeys(env, `archive/${deleted.sessionId()}/`)).toEqual([]);
    expect(await objectKeys(env, `exports/${deleted.sessionId()}/`)).toEqual([]);

    // What DynamoDB's TTL does to an expired session: delete META; then the stream consumer purges.
    await env.dynamo.send(new DeleteItemCommand({ TableName: env.tableName, Key: { pk: { S: `SESSION#${expired.sessionId()}` }, sk: { S: 'META' } } }));
    await purgeSessionItems({ client: env.dynamo, tableName: env.tableName, sessionId: expired.sessionId(), s3: location, exports: location });
    expect(await objectKeys(env, `archive/${expired.sessionId()}/`)).toEqual([]);
  });

  it('indexes the sessions of a table made before the activity index, so the sweeper finds the idle ones', async () => {
    const env = await localAws('cold-backfill');
    const store = await sessionWith(env, conversation('i', 1));
    const key = { pk: { S: `SESSION#${store.sessionId()}` }, sk: { S: 'META' } };
    await env.dynamo.send(new UpdateItemCommand({ TableName: env.tableName, Key: key, UpdateExpression: 'REMOVE gsi2pk, gsi2sk' }));
    expect((await sweep(env)).outcomes).toEqual([]);
    expect(await backfillActivityIndex({ client: env.dynamo, tableName: env.tableName })).toBe(1);
    expect(await backfillActivityIndex({ client: env.dynamo, tableName: env.tableName })).toBe(0);
    await waitUntil(async () => (await sweep(env)).archived === 1, { timeoutMs: 10_000, intervalMs: 200, message: 'the backfilled session archived' });
  });

  it('brings a table a data folder kept from an older version up to date: the activity index added and filled, the list index rebuilt to its projection, the old sessions listed whole', {
    timeout: 120_000,
  }, async () => {
    // The local stack's case: DynamoDB Local persisting to a folder across runs, the table made
    // by an older version. (Its own emulator, started twice on the folder.)
    const env = await localAws('cold-upgrade');
    const dataDir = await mkdtemp(join(tmpdir(), 'panto-upgrade-'));
    let local = await startDynamoDBLocal({ dataDir });
    try {
      const old = { ...env, dynamo: localDynamoDBClient(local.endpoint) };
      await old.dynamo.send(
        new CreateTableCommand({
          TableName: old.tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk'].map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: [
            {
              IndexName: 'byOwner',
              KeySchema: [
                { AttributeName: 'gsi1pk', KeyType: 'HASH' },
                { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
          ],
        }),
      );
      const store = await sessionWith(old, conversation('u', 1));
      // What a session written before the activity index and the listed log existed looks like.
      const key = { pk: { S: `SESSION#${store.sessionId()}` }, sk: { S: 'META' } };
      await old.dynamo.send(
        new UpdateItemCommand({ TableName: old.tableName, Key: key, UpdateExpression: 'REMOVE gsi2pk, gsi2sk, listed_count, listed_head' }),
      );
      const { entryCount, head } = store.metadata();
      await local.stop();

      local = await startDynamoDBLocal({ dataDir });
      const again = { ...env, dynamo: localDynamoDBClient(local.endpoint) };
      await createTable({ client: again.dynamo, tableName: again.tableName });
      const { Table: table } = await again.dynamo.send(new DescribeTableCommand({ TableName: again.tableName }));
      expect(table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.IndexStatus, index.Projection?.ProjectionType]).sort()).toEqual([
        ['byActivity', 'ACTIVE', 'KEYS_ONLY'],
        ['byOwner', 'ACTIVE', 'INCLUDE'],
      ]);
      // Its index item has no listed log: the list reads the session's META instead.
      let listed: SessionMetadata | undefined;
      await waitUntil(
        async () => {
          const { sessions } = await listOwnerSessions({ client: again.dynamo, tableName: again.tableName, owner: OWNER });
          listed = sessions.find((each) => each.id === store.sessionId());
          return listed !== undefined;
        },
        { timeoutMs: 10_000, intervalMs: 200, message: 'the old session listed' },
      );
      expect({ entryCount: listed?.entryCount, head: listed?.head, title: listed?.title }).toEqual({ entryCount, head, title: store.metadata().title });
      await createTable({ client: again.dynamo, tableName: again.tableName }); // and again: nothing to do
      await waitUntil(async () => (await sweep(again)).archived === 1, { timeoutMs: 10_000, intervalMs: 200, message: 'the old session archived' });
    } finally {
      await local.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
