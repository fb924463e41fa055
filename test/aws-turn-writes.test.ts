/**
 * A turn in two writes, on DynamoDB Local: a store for a turn costs no request when the
 * process's cache knows the session, its first append takes the lease in the same
 * transaction (refused, nothing written, while another lease holds), its last append gives
 * the lease up in its own, and every guarantee of the lease taken by its own request holds —
 * fencing, lapse of a crashed holder, no revival of an expired session, a stale cache refused.
 * All on a frozen clock.
 */
import { type DynamoDBClient, GetItemCommand, type TransactWriteItemsCommandOutput } from '@aws-sdk/client-dynamodb';
import {
  DynamoStore,
  listOwnerSessions,
  SessionBusyError,
  SessionCache,
  SessionLeaseLostError,
  type DynamoStoreTurnOptions,
  type SessionMetadata,
  updateSession,
} from '@panto/aws';
import { SessionConflictError, SessionNotFoundError } from '@panto/core';
import { SessionLog } from '@panto/core/store-kit';
import { ManualClock, RecordFactory } from '@panto/core/testing';
import { describe, expect, inject, it, vi } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { countCommands, localAws, once } from './setup/aws-fixtures.js';

const aws = once(() => localAws('turn-writes'));
const LEASE_MS = 30_000;

interface Fixture {
  clock: ManualClock;
  sessionId: string;
  /** Options of a store for a turn by `owner` with its own cache (another process) or the given one. */
  turnOptions(cache?: SessionCache, owner?: string): DynamoStoreTurnOptions;
  /** The lease attributes META holds now. */
  metaLease(): Promise<{ leaseId: string | undefined; entryCount: number }>;
}

async function fixture(ttlSeconds?: number): Promise<Fixture> {
  const { dynamo, tableName } = await aws();
  const clock = new ManualClock(Date.now());
  const dates = () => new Date(clock.now());
  const creator = await DynamoStore.create({ client: dynamo, tableName, owner: 'alice', clock: dates, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) });
  const sessionId = creator.sessionId();
  await creator.appendMessages([new RecordFactory('earlier').user('an earlier prompt')]);
  return {
    clock,
    sessionId,
    turnOptions: (cache = new SessionCache(), owner = 'alice') => ({ client: dynamo, tableName, owner, sessionId, leaseMs: LEASE_MS, cache, clock: dates }),
    async metaLease() {
      const { Item } = await dynamo.send(
        new GetItemCommand({ TableName: tableName, Key: { pk: { S: `SESSION#${sessionId}` }, sk: { S: 'META' } }, ConsistentRead: true }),
      );
      return { leaseId: Item?.lease_id?.S, entryCount: Number(Item?.entry_count?.N) };
    },
  };
}

/** A cache after a first turn in this process, which read META and the log once (cold): a user prompt and its answer. */
async function afterColdTurn(f: Fixture): Promise<SessionCache> {
  const cache = new SessionCache();
  const cold = await DynamoStore.forTurn(f.turnOptions(cache));
  await cold.loadConversation();
  await cold.appendMessages([new RecordFactory('t1').user('first')]);
  await cold.appendMessages([new RecordFactory('t1a').assistant('one')], { last: true });
  return cache;
}

/** The index write units each TransactWriteItems of `client` consumed, by index, as DynamoDB reports them. */
function indexUnits(client: DynamoDBClient): Array<Record<string, number>> {
  const writes: Array<Record<string, number>> = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      const [consumed] = (result.output as TransactWriteItemsCommandOutput).ConsumedCapacity ?? [];
      writes.push(Object.fromEntries(Object.entries(consumed?.GlobalSecondaryIndexes ?? {}).map(([name, units]) => [name, units.CapacityUnits ?? 0])));
      return result;
    },
    { step: 'initialize', name: 'indexUnits' },
  );
  return writes;
}

describe('a turn in two writes, on DynamoDB Local', () => {
  it('writes neither index with the prompt; the list shows the log as of the turn’s last write', async () => {
    const f = await fixture();
    const { tableName } = await aws();
    const client = localDynamoDBClient(inject('dynamoEndpoint'));
    const writes = indexUnits(client);
    const listed = async (): Promise<SessionMetadata | undefined> =>
      (await listOwnerSessions({ client, tableName, owner: 'alice', limit: 100 })).sessions.find((each) => each.id === f.sessionId);
    const before = (await listed())!;
    const store = await DynamoStore.forTurn({ ...f.turnOptions(), client });
    await store.loadConversation();
    f.clock.advance(1000);
    await store.appendMessages([new RecordFactory('p').user('a prompt')]);
    expect(writes).toEqual([{}]);
    expect(await listed()).toEqual(before);

    f.clock.advance(1000);
    await store.appendMessages([new RecordFactory('a').assistant('an answer')], { last: true });
    expect(new Set(Object.keys(writes[1]!))).toEqual(new Set(['byActivity', 'byOwner']));
    expect(await listed()).toEqual({
      ...before,
      entryCount: before.entryCount + 2,
      head: store.metadata().head,
      updatedAt: new Date(f.clock.now()).toISOString(),
    });
  });

  it('takes the lease with the prompt and gives it up with the last append: two requests for a warm turn', async () => {
    const f = await fixture();
    const cache = await afterColdTurn(f);

    // This process's own client, counted (the checks below read through another).
    const client = localDynamoDBClient(inject('dynamoEndpoint'));
    const counts = countCommands(client);
    const store = await DynamoStore.forTurn({ ...f.turnOptions(cache), client });
    await store.loadConversation();
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(0);
    await store.appendMessages([new RecordFactory('t2').user('second')]);
    const taken = store.turnLease();
    expect(taken).not.toBeNull();
    expect(await f.metaLease()).toEqual({ leaseId: taken!.leaseId, entryCount: 4 });
    // Held: another process's turn is refused before it writes anything.
    const other = await DynamoStore.forTurn(f.turnOptions()).catch((error: unknown) => error);
    expect(other).toBeInstanceOf(SessionBusyError);

    await store.appendMessages([new RecordFactory('t2a').assistant('two')], { last: true });
    expect(Object.fromEntries(counts)).toEqual({ TransactWriteItemsCommand: 2 });
    expect(store.leaseReleased()).toBe(true);
    expect(await f.metaLease()).toEqual({ leaseId: undefined, entryCount: 5 });
    // Given up: the next turn, anywhere, takes the session at once.
    const next = await DynamoStore.forTurn(f.turnOptions());
    await next.appendMessages([new RecordFactory('t3').user('third')]);
    expect(next.turnLease()).not.toBeNull();
  });

  it('rebuilds a warm turn’s session once: loading it keeps the log its handle built from the cache', async () => {
    const f = await fixture();
    const cache = await afterColdTurn(f);

    const builds = vi.spyOn(SessionLog, 'of');
    try {
      const warm = await DynamoStore.forTurn(f.turnOptions(cache));
      const loaded = await warm.loadConversation();
      // One pass over the session (the handle's), not a second one for the load.
      expect(builds).toHaveBeenCalledTimes(1);
      expect(loaded.conversation.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
      await warm.appendMessages([new RecordFactory('t2').user('second')]);
      // Loaded again after its own append: the log it holds is the one it grew, so no new build either.
      expect((await warm.loadEntries()).map((entry) => entry.id)).toHaveLength(4);
      expect(builds).toHaveBeenCalledTimes(1);
    } finally {
      builds.mockRestore();
    }
  });

  it('refuses the prompt of a second turn while the first holds the lease, writing nothing, even from a cache that saw no lease', async () => {
    const f = await fixture();
    const cache = new SessionCache();
    await (await DynamoStore.forTurn(f.turnOptions(cache))).loadConversation();
    const first = await DynamoStore.forTurn(f.turnOptions());
    await first.appendMessages([new RecordFactory('a').user('first turn')]);
    // This cache saw the session before the first turn's prompt: its write's condition refuses it, and says why.
    const fromCache = await DynamoStore.forTurn(f.turnOptions(cache));
    const refused = await fromCache.appendMessages([new RecordFactory('b').user('second turn')]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SessionBusyError);
    expect((refused as SessionBusyError).leaseExpiresAt).toBe(first.turnLease()!.expiresAt);
    // Read again: busy, before anything is written.
    cache.forgetMeta(f.sessionId);
    await expect(DynamoStore.forTurn(f.turnOptions(cache))).rejects.toBeInstanceOf(SessionBusyError);
    expect((await f.metaLease()).entryCount).toBe(2);
  });

  it('fences a holder whose lease lapsed and was taken: it can commit nothing, and cannot give the new lease up', async () => {
    const f = await fixture();
    const crashed = await DynamoStore.forTurn(f.turnOptions());
    await crashed.appendMessages([new RecordFactory('a').user('a turn that stalls')]);
    // Within the term the session stays held …
    f.clock.advance(LEASE_MS - 1);
    await expect(DynamoStore.forTurn(f.turnOptions())).rejects.toBeInstanceOf(SessionBusyError);
    // … and is free once the term has passed with no renewal: a crashed turn frees its session.
    f.clock.advance(1);
    const taker = await DynamoStore.forTurn(f.turnOptions());
    await taker.appendMessages([new RecordFactory('b').user('a new turn')]);

    await expect(crashed.appendMessages([new RecordFactory('c').assistant('too late')], { last: true })).rejects.toBeInstanceOf(SessionLeaseLostError);
    await crashed.turnLease()!.release();
    expect(await f.metaLease()).toEqual({ leaseId: taker.turnLease()!.leaseId, entryCount: 3 });
    // After its own last append, a holder is fenced out too: it holds nothing any more.
    await taker.appendMessages([new RecordFactory('d').assistant('answer')], { last: true });
    await expect(taker.appendMessages([new RecordFactory('e').user('more')])).rejects.toBeInstanceOf(SessionLeaseLostError);
    expect((await f.metaLease()).entryCount).toBe(4);
  });

  it('refuses a cached view whose model another process changed: the turn must pick its provider again', async () => {
    const f = await fixture();
    const cache = new SessionCache();
    await (await DynamoStore.forTurn(f.turnOptions(cache))).loadConversation();
    const { dynamo, tableName } = await aws();
    await updateSession({ client: dynamo, tableName, owner: 'alice', sessionId: f.sessionId, activeModel: { provider: 'openai', model: 'gpt-test' } });
    const stale = await DynamoStore.forTurn(f.turnOptions(cache));
    expect(stale.activeModel()?.provider).not.toBe('openai');
    await expect(stale.appendMessages([new RecordFactory('s').user('on the old model')])).rejects.toBeInstanceOf(SessionConflictError);
    cache.forgetMeta(f.sessionId);
    const fresh = await DynamoStore.forTurn(f.turnOptions(cache));
    expect(fresh.activeModel()).toEqual({ provider: 'openai', model: 'gpt-test' });
    await fresh.appendMessages([new RecordFactory('t').user('on the new model', 'openai', 'gpt-test')]);
    expect((await f.metaLease()).entryCount).toBe(2);
  });

  it('refuses a cached view of a session that expired, was taken by another owner, or moved on', async () => {
    const f = await fixture(60);
    const cache = new SessionCache();
    await (await DynamoStore.forTurn(f.turnOptions(cache))).loadConversation();
    // Another owner never sees it, cached or not.
    await expect(DynamoStore.forTurn(f.turnOptions(cache, 'mallory'))).rejects.toBeInstanceOf(SessionNotFoundError);
    // Moved on elsewhere: the cached head is refused by the write's condition, nothing written.
    const elsewhere = await DynamoStore.forTurn(f.turnOptions());
    await elsewhere.appendMessages([new RecordFactory('x').user('elsewhere')]);
    await elsewhere.appendMessages([new RecordFactory('y').assistant('answered')], { last: true });
    const stale = await DynamoStore.forTurn(f.turnOptions(cache));
    await expect(stale.appendMessages([new RecordFactory('z').user('from a stale cache')])).rejects.toBeInstanceOf(SessionConflictError);
    expect((await f.metaLease()).entryCount).toBe(3);
    // Expired (TTL passed, the item not yet deleted): a cached copy cannot bring it back.
    f.clock.advance(61_000);
    cache.forgetMeta(f.sessionId);
    await expect(DynamoStore.forTurn(f.turnOptions(cache))).rejects.toBeInstanceOf(SessionNotFoundError);
  });
});
