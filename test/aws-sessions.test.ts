import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  acquireSessionLease,
  deleteSession,
  DynamoStore,
  InvalidCursorError,
  listSessions,
  SessionBusyError,
  SessionNotFoundError,
} from '@panto/aws';
import { RecordFactory } from '@panto/core/testing';
import { describe, expect, it } from 'vitest';
import { localAws, once } from './setup/aws-fixtures.js';

const aws = once(() => localAws('sessions'));

/** A clock that only moves when told to. */
function manualClock(start: string): { now: () => Date; advance(ms: number): void } {
  let at = Date.parse(start);
  return { now: () => new Date(at), advance: (ms) => void (at += ms) };
}

describe('listSessions on DynamoDB Local', () => {
  it('lists only the owner\'s sessions, most recently updated first, page by page', async () => {
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

    const first = await listSessions({ client: dynamo, tableName, owner, limit: 2 });
    expect(first.sessions.map((s) => s.id)).toEqual([stores[1]!.sessionId(), stores[4]!.sessionId()]);
    expect(first.sessions[0]).toMatchObject({ owner, title: 'Touched last', entryCount: 1, updatedAt: '2026-05-01T00:00:06.000Z' });
    expect(first.nextCursor).not.toBeNull();
    const second = await listSessions({ client: dynamo, tableName, owner, limit: 2, cursor: first.nextCursor! });
    expect(second.sessions.map((s) => s.id)).toEqual([stores[3]!.sessionId(), stores[2]!.sessionId()]);
    const third = await listSessions({ client: dynamo, tableName, owner, limit: 2, cursor: second.nextCursor! });
    expect(third.sessions.map((s) => s.id)).toEqual([stores[0]!.sessionId()]);
    expect(third.nextCursor).toBeNull();
  });

  it('refuses a cursor it did not issue, or one of another owner, with InvalidCursorError', async () => {
    const { dynamo, tableName } = await aws();
    await DynamoStore.create({ client: dynamo, tableName, owner: 'cursor-a' });
    await DynamoStore.create({ client: dynamo, tableName, owner: 'cursor-a' });
    const page = await listSessions({ client: dynamo, tableName, owner: 'cursor-a', limit: 1 });
    for (const cursor of ['garbage!', Buffer.from('{"pk":1}').toString('base64url'), page.nextCursor!]) {
      const owner = cursor === page.nextCursor ? 'cursor-b' : 'cursor-a';
      await expect(listSessions({ client: dynamo, tableName, owner, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
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
    expect((await listSessions({ client: dynamo, tableName, owner, clock: clock.now })).sessions).toHaveLength(1);
    await DynamoStore.open({ client: dynamo, tableName, owner, sessionId: store.sessionId(), clock: clock.now });
    clock.advance(11_000);
    expect((await listSessions({ client: dynamo, tableName, owner, clock: clock.now })).sessions).toHaveLength(0);
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

    const items = await dynamo.send(
      new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: `SESSION#${sessionId}` } }, ConsistentRead: true }),
    );
    expect(items.Count).toBe(0);
    expect((await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `offload/${sessionId}/` }))).KeyCount ?? 0).toBe(0);
    await expect(DynamoStore.open({ client: dynamo, tableName, owner, sessionId })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.appendMessages([f.user('after delete')])).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(deleteSession({ client: dynamo, tableName, owner, sessionId })).rejects.toBeInstanceOf(SessionNotFoundError);
    // The failed append did not bring a META item back.
    expect((await listSessions({ client: dynamo, tableName, owner })).sessions).toEqual([]);
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

  it('lets a new holder take an expired lease, and the old holder\'s release leaves it alone', async () => {
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

  it('answers a lease on another owner\'s or a missing session with SessionNotFoundError, creating nothing', async () => {
    const { dynamo, tableName } = await aws();
    const store = await DynamoStore.create({ client: dynamo, tableName, owner: 'leaser' });
    for (const [owner, sessionId] of [
      ['intruder', store.sessionId()],
      ['leaser', 'no-such-session'],
      ['leaser', '../x'],
    ] as const) {
      await expect(acquireSessionLease({ client: dynamo, tableName, owner, sessionId, leaseMs: 1000 })).rejects.toBeInstanceOf(SessionNotFoundError);
    }
    await expect(DynamoStore.open({ client: dynamo, tableName, owner: 'leaser', sessionId: 'no-such-session' })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });
});
