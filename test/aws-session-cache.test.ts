/**
 * DynamoStore with a SessionCache on DynamoDB Local: the cache saves reads, never
 * correctness — what a load returns is what a handle without a cache reads.
 */
import { deleteSession, DynamoStore, SessionBusyError, SessionCache, SessionNotFoundError } from '@panto/aws';
import type { DiskMessage, LoadedSession } from '@panto/core';
import { RecordFactory, usage } from '@panto/core/testing';
import { describeSessionStoreConformance } from '@panto/core/testing/conformance';
import { describe, expect, it } from 'vitest';
import { countCommands, localAws, once } from './setup/aws-fixtures.js';

const aws = once(() => localAws('cache'));
const OWNER = 'owner-c';

async function options(cache?: SessionCache) {
  const { dynamo, tableName, s3, bucket } = await aws();
  return { client: dynamo, tableName, owner: OWNER, s3: { client: s3, bucket }, ...(cache === undefined ? {} : { cache }) };
}

// Every handle of the suite shares one cache, as the handles of one warm process do.
const shared = new SessionCache();
describeSessionStoreConformance('DynamoStore with a shared SessionCache', {
  create: async () => DynamoStore.create(await options(shared)),
  reopen: async (store) => DynamoStore.open({ ...(await options(shared)), sessionId: store.sessionId() }),
});

describe('DynamoStore with a SessionCache', () => {
  it("shares one read among handles that load the same session at once, and none sees another's appends", async () => {
    const f = new RecordFactory('shared');
    const writer = await DynamoStore.create(await options());
    await writer.appendMessages([f.user('q1'), f.assistant('a1')]);
    const cache = new SessionCache();
    const handles = await Promise.all(Array.from({ length: 10 }, async () => DynamoStore.open({ ...(await options(cache)), sessionId: writer.sessionId() })));
    const { dynamo } = await aws();
    const counts = countCommands(dynamo);
    const loaded = await Promise.all(handles.map((handle) => handle.loadConversation()));
    expect(counts.get('QueryCommand')).toBe(1);
    for (const each of loaded) expect(each.conversation.messages).toHaveLength(2);
    await handles[0]!.appendMessages([f.user('q2')]);
    expect((await handles[1]!.loadTree()).entries.map((entry) => entry.id)).toHaveLength(3);
    expect(loaded[1]!.conversation.messages).toHaveLength(2);
  });

  it('loads with no read right after a lease, and reads only what another process appended since', async () => {
    const cache = new SessionCache();
    const f = new RecordFactory('c1');
    const first = await DynamoStore.create(await options(cache));
    await first.appendMessages([f.user('q1'), f.assistant('a1')]);
    const { dynamo } = await aws();
    const counts = countCommands(dynamo);

    const { store, lease } = await DynamoStore.lease({ ...(await options(cache)), sessionId: first.sessionId(), leaseMs: 10_000 });
    expect((await store.loadConversation()).conversation.messages).toHaveLength(2);
    expect([...counts.keys()]).toEqual(['UpdateItemCommand']);
    await lease.release();

    // Another process (no cache) appends; this one's cached copy is now a prefix.
    const other = await DynamoStore.open({ ...(await options()), sessionId: first.sessionId() });
    await other.loadConversation();
    await other.appendMessages([f.user('q2'), f.assistant('a2')]);
    counts.clear();
    const again = await DynamoStore.open({ ...(await options(cache)), sessionId: first.sessionId() });
    const loaded = await again.loadConversation();
    const uncached = await (await DynamoStore.open({ ...(await options()), sessionId: first.sessionId() })).loadConversation();
    expect(loaded.conversation.messages).toEqual(uncached.conversation.messages);
    expect(loaded.conversation.messages).toHaveLength(4);
    expect(cache.get(first.sessionId())?.entries).toHaveLength(4);
  });

  it('follows a session that another handle of the same process writes, reading only what is new at each load', async () => {
    const cache = new SessionCache();
    const f = new RecordFactory('follow');
    const writer = await DynamoStore.create(await options(cache));
    await writer.appendMessages([f.user('q1'), f.assistant('a1')]);
    const follower = await DynamoStore.open({ ...(await options(cache)), sessionId: writer.sessionId() });
    expect(await follower.loadEntries()).toHaveLength(2);
    const { dynamo } = await aws();
    const queries: Array<string | undefined> = [];
    dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand')
          queries.push((args.input as { ExpressionAttributeValues?: Record<string, { S?: string }> }).ExpressionAttributeValues?.[':from_sk']?.S);
        return next(args);
      },
      { step: 'initialize', name: 'follow-queries' },
    );
    try {
      for (let turn = 2; turn <= 3; turn++) {
        await writer.appendMessages([f.user(`q${turn}`), f.assistant(`a${turn}`)]);
        const entries = await follower.loadEntries();
        expect(entries.map((entry) => (entry.type === 'message' ? entry.message.content : '')).at(-2)).toBe(`q${turn}`);
      }
    } finally {
      dynamo.middlewareStack.remove('follow-queries');
    }
    // The writer's appends kept the shared cache ahead of the follower's META: each load read from there on.
    expect(queries).toEqual(['E#000000000004', 'E#000000000006']);
  });

  it("gives a warm turn's handle the conversation a cold read gives, through tool rounds, a branch switch and a compaction", async () => {
    const cache = new SessionCache();
    const f = new RecordFactory('warm');
    const created = await DynamoStore.create(await options(cache));
    const sessionId = created.sessionId();
    const cold = async () => (await DynamoStore.open({ ...(await options()), sessionId })).loadConversation();
    const same = (loaded: LoadedSession) => ({ messages: loaded.conversation.messages, dangling: loaded.danglingUser, at: loaded.at?.id });
    /** One turn as the service runs it: a handle from the cache, its load checked against a cold one, then its two appends. */
    const turn = async (opening: DiskMessage[], answer: DiskMessage[]): Promise<void> => {
      const store = await DynamoStore.forTurn({ ...(await options(cache)), sessionId, leaseMs: 10_000 });
      expect(same(await store.loadConversation())).toEqual(same(await cold()));
      await store.appendMessages(opening);
      await store.appendMessages(answer, { last: true });
    };
    const call = { type: 'tool_call' as const, id: 'call-1', name: 'read', input: { path: 'a' } };
    const calling = f.message({ role: 'assistant', content: [call], provider: 'p', model: 'm', usage: usage(1, 1), stop_reason: 'tool_use' });
    const result = f.message({ role: 'tool_result', tool_call_id: 'call-1', tool_name: 'read', content: 'text', is_error: false });
    await turn([f.user('q1')], [f.assistant('a1')]);
    // The cache now holds the conversation the turn extended: the next turn starts from it.
    expect(cache.get(sessionId)?.built?.count).toBe(2);
    await turn([f.user('q2')], [calling, result]);
    await turn([f.user('q3')], [f.assistant('a3')]);
    const branchPoint = (await cold()).entries[1]!.id;
    const switcher = await DynamoStore.open({ ...(await options(cache)), sessionId });
    await switcher.switchLeaf(branchPoint);
    await turn([f.user('on the branch')], [f.assistant('a4')]);
    const compaction: DiskMessage = {
      type: 'compaction',
      id: f.nextId(),
      timestamp: '2026-01-01T00:00:00.000Z',
      summary: 'all of it',
      provider: 'p',
      model: 'm',
      usage: usage(1, 1),
      prior_usage: usage(2, 2),
    };
    await turn([f.message({ role: 'system', content: 'rule', mode: 'append' })], [compaction]);
    await turn([f.user('after the summary')], [f.assistant('a5')]);
    const final = await cold();
    expect(final.conversation.messages.map((message) => message.role)).toEqual(['system', 'compaction', 'user', 'assistant']);
    const warm = await (await DynamoStore.forTurn({ ...(await options(cache)), sessionId, leaseMs: 10_000 })).loadConversation();
    expect(same(warm)).toEqual(same(final));
  });

  it('does not take a session deleted and made again under the same id for the cached one', async () => {
    const cache = new SessionCache();
    const f = new RecordFactory('c2');
    const first = await DynamoStore.create(await options(cache));
    await first.appendMessages([f.user('old question'), f.assistant('old answer')]);
    const { dynamo, tableName, s3, bucket } = await aws();
    await deleteSession({ client: dynamo, tableName, owner: OWNER, sessionId: first.sessionId(), s3: { client: s3, bucket } });
    const remade = await DynamoStore.create({ ...(await options()), sessionId: first.sessionId() });
    await remade.appendMessages([f.user('new question')]);
    const loaded = await (await DynamoStore.open({ ...(await options(cache)), sessionId: first.sessionId() })).loadConversation();
    expect(loaded.conversation.messages).toEqual([]);
    expect(loaded.danglingUser).toBe('new question');
  });

  it('refuses a lease on a session whose TTL passed, and leaves no lease behind', async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = () => new Date(now);
    const store = await DynamoStore.create({ ...(await options()), ttlSeconds: 60, clock });
    now += 120_000;
    const leased = DynamoStore.lease({ ...(await options()), sessionId: store.sessionId(), leaseMs: 10_000, clock });
    await expect(leased).rejects.toBeInstanceOf(SessionNotFoundError);
    now -= 120_000; // back before expiry: no lease was left holding it
    const { lease } = await DynamoStore.lease({ ...(await options()), sessionId: store.sessionId(), leaseMs: 10_000, clock });
    await expect(DynamoStore.lease({ ...(await options()), sessionId: store.sessionId(), leaseMs: 10_000, clock })).rejects.toBeInstanceOf(SessionBusyError);
    await lease.release();
  });
});

describe('SessionCache', () => {
  const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ ...new RecordFactory(`e${n}`).user(`m${i}`), parent_id: null }));

  it('keeps at most maxBytes, dropping the least recently used session first', () => {
    const cache = new SessionCache({ maxBytes: 100 });
    cache.set('a', { incarnation: 'i', entries: entries(1), bytes: 40 });
    cache.set('b', { incarnation: 'i', entries: entries(1), bytes: 40 });
    expect(cache.get('a')).toBeDefined(); // a is now the most recently used
    cache.set('c', { incarnation: 'i', entries: entries(1), bytes: 40 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.bytes).toBe(80);
    cache.set('big', { incarnation: 'i', entries: entries(1), bytes: 101 });
    expect(cache.get('big')).toBeUndefined();
    expect(cache.bytes).toBe(80);
  });
});
