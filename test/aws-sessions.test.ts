import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import {
  acquireSessionLease,
  deleteSession,
  DynamoStore,
  exportSession,
  InvalidCursorError,
  listOwnerSessions,
  SessionBusyError,
  SessionExistsError,
  SessionNotFoundError,
  TOMBSTONE_TTL_SECONDS,
} from '@panto/aws';
import { RecordFactory } from '@panto/core/testing';
import { describe, expect, it } from 'vitest';
import { dynamoFailingOn, localAws, once } from './setup/aws-fixtures.js';
import { objectKeys, partitionSks } from './setup/aws-inspect.js';

const aws = once(() => localAws('sessions'));

/** A clock that only moves when told to. */
function manualClock(start: string): { now: () => Date; advance(ms: number): void } {
  let at = Date.parse(start);
  return {
    now: () => new Date(at),
    advance: (ms) => {
      at += ms;
    },
  };
}

describe('listOwnerSessions on DynamoDB Local', () => {
  it("lists only the owner's sessions, most recently updated first, page by page", async () => {
    const { dynamo, tableName } = await aws();
    const owner = `lister-${Math.random().toString(36).slice(2)}`;
    const clock = manualClock('2026-05-01T00:00:00.000Z');
    const stores: DynamoStore[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      stores.push(await DynamoStore.create({ client: dynamo, tableName, owner, clock: clock.now }));
    }
    await DynamoStore.create({ client: dynamo, tableName, owner: `${owner}-other` });
    clock.advance(1000);
    await stores[1]!.appendMessages([new RecordFactory('l').user('  Touched   last ')]);

    const first = await listOwnerSessions({ client: dynamo, tableName, owner, limit: 2 });
    expect(first.sessions.map((s) => s.id)).toEqual([stores[1]!.sessionId(), stores[4]!.sessionId()]);
    expect(first.sessions[0]).toMatchObject({ owner, title: 'Touched last', entryCount: 1, updatedAt: '2026-05-01T00:00:06.000Z' });
    expect(first.nextCursor).not.toBeNull();
    const second = await listOwnerSessions({ client: dynamo, tableName, owner, limit: 2, cursor: first.nextCursor! });
    expect(second.sessions.map((s) => s.id)).toEqual([stores[3]!.sessionId(), stores[2]!.sessionId()]);
    const third = await listOwnerSessions({ client: dynamo, tableName, owner, limit: 2, cursor: second.nextCursor! });
    expect(third.sessions.map((s) => s.id)).toEqual([stores[0]!.sessionId()]);
    expect(third.nextCursor).toBeNull();
    const exact = await listOwnerSessions({ client: dynamo, tableName, owner, limit: 5 });
    expect(exact.sessions).toHaveLength(5);
    expect(exact.nextCursor).toBeNull();
  });

  it('refuses a cursor it did not issue, or one of another owner, with InvalidCursorError', async () => {
    const { dynamo, tableName } = await aws();
    await DynamoStore.create({ client: dynamo, tableName, owner: 'cursor-a' });
    await DynamoStore.create({ client: dynamo, tableName, owner: 'cursor-a' });
    const page = await listOwnerSessions({ client: dynamo, tableName, owner: 'cursor-a', limit: 1 });
    for (const cursor of ['garbage!', Buffer.from('{"pk":1}').toString('base64url'), page.nextCursor!]) {
      const owner = cursor === page.nextCursor ? 'cursor-b' : 'cursor-a';
      await expect(listOwnerSessions({ client: dynamo, tableName, owner, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
    }
  });

  it('hides and refuses to open a session whose TTL has passed', async () => {
    const { dynamo, tableName } = await aws();
    const owner = `ttl-${Math.random().toString(36).slice(2)}`;
    const clock = manualClock('2026-06-01T00:00:00.000Z');
    const store = await DynamoStore.create({ client: dynamo, tableName, owner, ttlSeconds: 60, clock: clock.now });
    clock.advance(50_000);
    await store.appendMessages([new RecordFactory('ttl').user('keeps it alive')]);
    clock.advance(50_000); // 100 s after creation, 50 s after the last append: still alive
    expect((await listOwnerSessions({ client: dynamo, tableName, owner, clock: clock.now })).sessions).toHaveLength(1);
    await DynamoStore.open({ client: dynamo, tableName, owner, sessionId: store.sessionId(), clock: clock.now });
    clock.advance(11_000);
    expect((await listOwnerSessions({ client: dynamo, tableName, owner, clock: clock.now })).sessions).toHaveLength(0);
    await expect(DynamoStore.open({ client: dynamo, tableName, owner, sessionId: store.sessionId(), clock: clock.now })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });
});

describe('deleteSession on DynamoDB Local', () => {
  it('removes the META item, every entry item and the offloaded texts; old handles then fail', async () => {
    const { dynamo, tableName, s3, bucket } = await aws();
    const owner = 'deleter';
    const store = await DynamoStore.create({ client: dynamo, tableName, owner, s3: { client: s3, bucket } });
    const f = new RecordFactory('del');
    await store.appendMessages([f.user('hi'), f.assistant('x'.repeat(100_000))]);
    await store.appendMessages([f.message({ role: 'tool_result', tool_call_id: 't', tool_name: 'read', content: 'y'.repeat(500_000), is_error: false })]);
    const sessionId = store.sessionId();

    await expect(deleteSession({ client: dynamo, tableName, owner: 'not-the-owner', sessionId, s3: { client: s3, bucket } })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await deleteSession({ client: dynamo, tableName, owner, sessionId, s3: { client: s3, bucket } });

    const env = { dynamo, tableName, s3, bucket };
    expect(await partitionSks(env, sessionId)).toEqual([]);
    expect(await objectKeys(env, `offload/${sessionId}/`)).toEqual([]);
    await expect(DynamoStore.open({ client: dynamo, tableName, owner, sessionId })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.appendMessages([f.user('after delete')])).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(deleteSession({ client: dynamo, tableName, owner, sessionId })).rejects.toBeInstanceOf(SessionNotFoundError);
    // The failed append did not bring a META item back.
    expect((await listOwnerSessions({ client: dynamo, tableName, owner })).sessions).toEqual([]);
  });
});

describe('deleteSession: the tombstone', () => {
  const BIG = 'x'.repeat(400_000); // over an item's 350 KB of text: offloaded to S3

  it('leaves a session whose delete crashed after the tombstone gone for every reader and writer; a repeated delete finishes it', async () => {
    const local = await aws();
    const { dynamo, tableName, s3, bucket } = local;
    const location = { client: s3, bucket };
    const owner = 'tombstoner';
    const f = new RecordFactory('tomb');
    const store = await DynamoStore.create({ client: dynamo, tableName, owner, s3: location });
    await store.appendMessages([f.user('hi'), f.assistant(BIG)]);
    const sessionId = store.sessionId();
    await exportSession({ dynamo, tableName, s3, bucket, owner, sessionId });
    expect(await objectKeys(local, `offload/${sessionId}/`)).toHaveLength(1);
    expect(await objectKeys(local, `exports/${sessionId}/`)).toHaveLength(1);

    const at = new Date('2026-09-01T10:00:00.000Z');
    const crashing = dynamoFailingOn('QueryCommand'); // dies right after the tombstone, before reading the partition
    await expect(deleteSession({ client: crashing, tableName, owner, sessionId, s3: location, exports: location, clock: () => at })).rejects.toThrow(
      'crashed before QueryCommand',
    );

    const { Item: tombstone } = await dynamo.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: `SESSION#${sessionId}` }, sk: { S: 'META' } }, ConsistentRead: true }),
    );
    expect(tombstone).toMatchObject({
      owner: { S: owner },
      deleted_at: { S: '2026-09-01T10:00:00.000Z' },
      expires_at: { N: String(at.getTime() / 1000 + TOMBSTONE_TTL_SECONDS) },
    });
    expect(tombstone?.gsi1pk).toBeUndefined();
    expect(tombstone?.gsi1sk).toBeUndefined();

    // Gone, for every reader and writer.
    expect((await listOwnerSessions({ client: dynamo, tableName, owner })).sessions.map((session) => session.id)).not.toContain(sessionId);
    await expect(DynamoStore.open({ client: dynamo, tableName, owner, sessionId, s3: location })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.loadConversation()).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(acquireSessionLease({ client: dynamo, tableName, owner, sessionId, leaseMs: 1000 })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(exportSession({ dynamo, tableName, s3, bucket, owner, sessionId })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(DynamoStore.create({ client: dynamo, tableName, owner, sessionId })).rejects.toBeInstanceOf(SessionExistsError);
    // A late append is refused, and takes back the text it offloaded first.
    const items = await partitionSks(local, sessionId);
    await expect(store.appendMessages([f.user('late'), f.assistant(`${BIG}!`)])).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await partitionSks(local, sessionId)).toEqual(items);
    expect(await objectKeys(local, `offload/${sessionId}/`)).toHaveLength(1);
    // Another owner can neither finish it nor learn that it exists.
    await expect(deleteSession({ client: dynamo, tableName, owner: 'intruder', sessionId, s3: location, exports: location })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );

    await deleteSession({ client: dynamo, tableName, owner, sessionId, s3: location, exports: location });
    expect(await partitionSks(local, sessionId)).toEqual([]);
    expect(await objectKeys(local, `offload/${sessionId}/`)).toEqual([]);
    expect(await objectKeys(local, `exports/${sessionId}/`)).toEqual([]);
    await expect(deleteSession({ client: dynamo, tableName, owner, sessionId, s3: location, exports: location })).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('deletes the texts an append offloaded just before its transaction found the session deleted', async () => {
    const local = await aws();
    const { dynamo, tableName, s3, bucket } = local;
    const location = { client: s3, bucket };
    const store = await DynamoStore.create({ client: dynamo, tableName, owner: 'late-writer', s3: location });
    const sessionId = store.sessionId();
    await deleteSession({ client: dynamo, tableName, owner: 'late-writer', sessionId, s3: location, exports: location });
    const f = new RecordFactory('late');
    await expect(store.appendMessages([f.user('too late'), f.assistant(BIG)])).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await objectKeys(local, `offload/${sessionId}/`)).toEqual([]);
    expect(await partitionSks(local, sessionId)).toEqual([]);
  });
});

describe('acquireSessionLease on DynamoDB Local', () => {
  it('grants one lease at a time, refuses a contender with SessionBusyError, and frees it on release', async () => {
    const { dynamo, tableName } = await aws();
    const owner = 'leaser';
    const store = await DynamoStore.create({ client: dynamo, tableName, owner });
    const options = { client: dynamo, tableName, owner, sessionId: store.sessionId(), leaseMs: 30_000, now: () => 1_000_000 };
    const lease = await acquireSessionLease(options);
    const busy = await acquireSessionLease(options).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(SessionBusyError);
    expect((busy as SessionBusyError).leaseExpiresAt).toBe(1_030_000);
    await lease.release();
    const next = await acquireSessionLease(options);
    expect(next.leaseId).not.toBe(lease.leaseId);
    // The lease lives on META beside the session's state, which appends leave alone.
    await store.appendMessages([new RecordFactory('lease').user('during the turn')]);
    await expect(acquireSessionLease(options)).rejects.toBeInstanceOf(SessionBusyError);
    await next.release();
  });

  it("lets a new holder take an expired lease, and the old holder's release leaves it alone", async () => {
    const { dynamo, tableName } = await aws();
    const owner = 'leaser';
    const store = await DynamoStore.create({ client: dynamo, tableName, owner });
    const base = { client: dynamo, tableName, owner, sessionId: store.sessionId(), leaseMs: 10_000 };
    const stale = await acquireSessionLease({ ...base, now: () => 5_000 });
    const fresh = await acquireSessionLease({ ...base, now: () => 15_000 }); // at expiry: free
    await stale.release();
    await expect(acquireSessionLease({ ...base, now: () => 16_000 })).rejects.toBeInstanceOf(SessionBusyError);
    await fresh.release();
    await acquireSessionLease({ ...base, now: () => 16_000 });
  });

  it("answers a lease on another owner's or a missing session with SessionNotFoundError, creating nothing", async () => {
    const { dynamo, tableName } = await aws();
    const store = await DynamoStore.create({ client: dynamo, tableName, owner: 'leaser' });
    for (const [owner, sessionId] of [
      ['intruder', store.sessionId()],
      ['leaser', 'no-such-session'],
      ['leaser', '../x'],
    ] as const) {
      await expect(acquireSessionLease({ client: dynamo, tableName, owner, sessionId, leaseMs: 1000 })).rejects.toBeInstanceOf(SessionNotFoundError);
    }
    await expect(DynamoStore.open({ client: dynamo, tableName, owner: 'leaser', sessionId: 'no-such-session' })).rejects.toBeInstanceOf(SessionNotFoundError);
  });
});
