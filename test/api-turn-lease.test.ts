/**
 * Turns that outlive a dropped connection, and leases that outlive their holder by one
 * short term, through the HTTP API: the real app on loopback, DynamoDB Local, a paused
 * FakeLLMServer as the model, and a frozen clock for the leases — renewals happen when the
 * test moves the clock, never by waiting.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { acquireSessionLease } from '@panto/aws';
import type { Message } from '@panto/core';
import { ManualClock, waitUntil } from '@panto/core/testing';
import { DEFAULT_SERVICE_LIMITS } from '@panto/functions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, json, snapshot, type SSEEvent, sseReader, startApi } from './api-harness.js';

interface TurnState {
  running: true;
  started_at: string | null;
  stop_requested: boolean;
}
interface ContentsJson {
  messages: Message[];
  dangling_user: string | null;
  entry_count: number;
  turn: TurnState | null;
}
interface ErrorJson {
  error: { code: string; message: string };
}

const { leaseMs: LEASE_MS, leaseRenewMs: RENEW_MS } = DEFAULT_SERVICE_LIMITS;
/** How long a wait may take on a machine shared by parallel test files: a deadline, never a pause. */
const WAIT_MS = 15_000;

let api: ApiHarness;
let clock: ManualClock;

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  api = await startApi('api-turn-lease', { clock, limits: { eventsPollMs: 20 } });
});
afterEach(() => {
  api.fake.resume(); // a test that failed midway leaves no reply paused for the next
});
afterAll(async () => {
  await api?.close();
});

const contents = async (id: string, owner = 'alice'): Promise<ContentsJson> => json<ContentsJson>(await api.call(owner, 'GET', `/sessions/${id}`), 200);

/** The lease expiry META holds now (epoch ms), read consistently. */
async function leaseExpiry(id: string): Promise<number | undefined> {
  const { Item } = await api.aws.dynamo.send(
    new GetItemCommand({ TableName: api.aws.tableName, Key: { pk: { S: `SESSION#${id}` }, sk: { S: 'META' } }, ConsistentRead: true }),
  );
  const raw = Item?.lease_expires_at?.N;
  return raw === undefined ? undefined : Number(raw);
}

/** Starts a streamed turn on its own connection and reads it up to the first text delta. */
async function streamUntilFirstDelta(id: string, body: object): Promise<{ stream: ReturnType<typeof sseReader>; abort: () => void; before: SSEEvent[] }> {
  const controller = new AbortController();
  const response = await fetch(`${api.url}/sessions/${id}/messages/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await api.token('alice')}` },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const stream = sseReader(response);
  const before = await stream.until((event) => event.event === 'text-delta');
  return { stream, abort: () => controller.abort(), before };
}

const assistantText = (message: Message | undefined): string =>
  message?.role === 'assistant' ? message.content.map((block) => (block.type === 'text' ? block.text : '')).join('') : '';

describe('a running turn renews its lease', () => {
  it('holds the session past the lease term while it runs, refusing another turn, then stores its whole answer', { timeout: 90_000 }, async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ text: 'one two three four', pauseAfterDeltas: 1 });
    const startedAt = clock.now();
    const { stream } = await streamUntilFirstDelta(id, { text: 'take your time' });
    expect(await leaseExpiry(id)).toBe(startedAt + LEASE_MS);
    for (let renewal = 1; renewal <= 4; renewal++) {
      clock.advance(RENEW_MS);
      const expected = startedAt + renewal * RENEW_MS + LEASE_MS;
      // Done once the heartbeat has its next renewal scheduled (it does so when the answer is back).
      await waitUntil(async () => clock.pending === 1 && (await leaseExpiry(id)) === expected, {
        message: `renewal ${renewal} pushed the lease to ${expected}`,
        timeoutMs: WAIT_MS,
      });
    }
    // 40 s on the lease's clock: past the 30 s it was taken for. Without renewals this turn would get in.
    const busy = await json<ErrorJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'me too' }), 409);
    expect(busy.error.code).toBe('session_busy');
    // Its answer so far is readable too (stored once the model had been writing for a second on the lease's clock).
    expect((await contents(id)).turn).toEqual({
      running: true,
      started_at: new Date(startedAt).toISOString(),
      stop_requested: false,
      partial: { message: expect.objectContaining({ role: 'assistant', content: [{ type: 'text', text: 'one' }] }), updated_at: expect.any(String) },
    });

    api.fake.resume();
    const rest = await stream.rest();
    expect(rest.at(-1)).toMatchObject({ event: 'end', data: { stop_reason: 'end_turn', incomplete: false } });
    const after = await contents(id);
    expect(after.turn).toBeNull();
    expect(assistantText(after.messages.at(-1))).toBe('one two three four');
    expect(await leaseExpiry(id)).toBeUndefined();
  });

  it('stops a turn whose lease another holder took, answering 409 lease_lost and writing nothing after the loss', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ text: 'one two three', pauseAfterDeltas: 1 });
    const requests = api.fake.requests.length;
    const turn = api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'a slow one' });
    await waitUntil(() => api.fake.paused === 1 && api.fake.requests.length > requests, { message: 'the model is writing', timeoutMs: WAIT_MS });
    // The holder stalled past its term (as if frozen) and another process took the session.
    const thief = await acquireSessionLease({
      client: api.aws.dynamo,
      tableName: api.aws.tableName,
      owner: 'alice',
      sessionId: id,
      leaseMs: LEASE_MS,
      now: () => clock.now() + LEASE_MS,
    });
    clock.advance(RENEW_MS);
    const lost = await json<ErrorJson>(await turn, 409);
    expect(lost.error.code).toBe('lease_lost');
    // The prompt was stored while the lease held; the cut-short answer was fenced off.
    const after = await contents(id);
    expect(after.messages).toEqual([]);
    expect(after.dangling_user).toBe('a slow one');
    // The new holder's lease is untouched: the old holder's release did not free it.
    expect(await leaseExpiry(id)).toBe(clock.now() - RENEW_MS + 2 * LEASE_MS);
    await thief.release();
    expect(api.logged).toEqual([]);
  });
});

describe('a client that goes away', () => {
  it('does not stop a streamed turn: the answer is stored whole with its real stop reason, and GET shows the turn running meanwhile', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ text: 'one two three four', pauseAfterDeltas: 1 });
    const closed = api.closedConnections();
    const { abort, before } = await streamUntilFirstDelta(id, { text: 'answer me in a lift' });
    expect(before.find((event) => event.event === 'text-delta')?.data).toEqual({ delta: 'one' });
    abort();
    await waitUntil(() => api.closedConnections() > closed, { message: 'the server saw the client go away', timeoutMs: WAIT_MS });
    const during = await contents(id);
    expect(during.turn).toMatchObject({ running: true, stop_requested: false });
    // The turn still reads from the model: it was not aborted with its client.
    expect(api.fake.paused).toBe(1);

    api.fake.resume();
    await waitUntil(async () => (await contents(id)).turn === null, { message: 'the turn ended', timeoutMs: WAIT_MS });
    const after = await contents(id);
    expect(after.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(after.messages[1]).toMatchObject({ role: 'assistant', stop_reason: 'end_turn' });
    expect(assistantText(after.messages[1])).toBe('one two three four');
  });

  it('stops the streamed turn when the client asked so (on_disconnect: abort), storing what was written as aborted', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ text: 'one two three four', pauseAfterDeltas: 1 });
    const { abort } = await streamUntilFirstDelta(id, { text: 'stop if I go', on_disconnect: 'abort' });
    abort();
    await waitUntil(async () => (await contents(id)).turn === null, { message: 'the turn stopped', timeoutMs: WAIT_MS });
    const after = await contents(id);
    expect(after.messages[1]).toMatchObject({ role: 'assistant', stop_reason: 'aborted' });
    expect(assistantText(after.messages[1])).toBe('one');
    expect(api.fake.paused).toBe(0);
  });

  it('refuses an on_disconnect that is neither continue nor abort', async () => {
    const { id } = await api.newSession();
    for (const [path, body] of [
      ['messages', { text: 'x', on_disconnect: 'later' }],
      ['messages/stream', { text: 'x', on_disconnect: 'later' }],
      ['compact', { on_disconnect: 'later' }],
    ] as const) {
      const error = await json<ErrorJson & { error: { field: string } }>(await api.call('alice', 'POST', `/sessions/${id}/${path}`, body), 400);
      expect(error.error, path).toMatchObject({ field: 'on_disconnect', message: 'on_disconnect: "continue" or "abort"' });
    }
  });
});

describe('POST /sessions/{id}/stop', () => {
  it('stops a turn started from another connection at its next renewal, keeping what it wrote; another owner gets 404', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ text: 'one two three four', pauseAfterDeltas: 1 });
    const { stream } = await streamUntilFirstDelta(id, { text: 'a long story' });
    const before = await snapshot(api.aws);
    const foreign = await json<ErrorJson>(await api.call('bob', 'POST', `/sessions/${id}/stop`), 404);
    expect(foreign.error.code).toBe('session_not_found');
    expect(await snapshot(api.aws)).toEqual(before);

    const asked = await json<{ turn: TurnState }>(await api.call('alice', 'POST', `/sessions/${id}/stop`), 202);
    expect(asked.turn).toMatchObject({ running: true, stop_requested: true });
    expect((await contents(id)).turn).toMatchObject({ running: true, stop_requested: true });
    expect(api.fake.paused).toBe(1); // nothing reaches the turn but its renewal
    clock.advance(RENEW_MS);
    const rest = await stream.rest();
    expect(rest.at(-1)).toMatchObject({ event: 'end', data: { stop_reason: 'aborted', incomplete: true, incomplete_reason: 'stopped' } });
    const after = await contents(id);
    expect(after.turn).toBeNull();
    expect(after.messages[1]).toMatchObject({ role: 'assistant', stop_reason: 'aborted' });
    expect(assistantText(after.messages[1])).toBe('one');

    const none = await json<ErrorJson>(await api.call('alice', 'POST', `/sessions/${id}/stop`), 409);
    expect(none.error.code).toBe('turn_not_running');
    // The next turn is not stopped by the old request.
    api.fake.enqueue({ text: 'fresh' });
    const next = await json<{ stop_reason: string; incomplete: boolean }>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'again' }), 200);
    expect(next).toMatchObject({ stop_reason: 'end_turn', incomplete: false });
  });

  it('stops a compaction, which then writes nothing and answers 409 stopped', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ text: 'first answer' });
    await json<unknown>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'hi' }), 200);
    api.fake.enqueue({ text: 'Summary: the user said hi', pauseAfterDeltas: 1 });
    const requests = api.fake.requests.length;
    const compaction = api.call('alice', 'POST', `/sessions/${id}/compact`, {});
    await waitUntil(() => api.fake.paused === 1 && api.fake.requests.length > requests, { message: 'the compaction is being written', timeoutMs: WAIT_MS });
    const before = await snapshot(api.aws);
    await json<unknown>(await api.call('alice', 'POST', `/sessions/${id}/stop`), 202);
    clock.advance(RENEW_MS);
    expect((await json<ErrorJson>(await compaction, 409)).error.code).toBe('stopped');
    const after = await contents(id);
    expect(after.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(after.turn).toBeNull();
    // Nothing of the session's; the usage ledger got its hold for the summary back (the items of the owner's partition).
    const sessionItems = (items: typeof before.items) => items.filter((item) => item.sk?.S !== 'META' && !item.pk?.S?.startsWith('OWNER#'));
    expect(sessionItems((await snapshot(api.aws)).items)).toEqual(sessionItems(before.items));
    expect((await json<{ today: { reserved_usd: number } }>(await api.call('alice', 'GET', '/usage'), 200)).today.reserved_usd).toBe(0);
  });

  it('answers 409 turn_not_running when no turn runs, and refuses a body with fields', async () => {
    const { id } = await api.newSession();
    expect((await json<ErrorJson>(await api.call('alice', 'POST', `/sessions/${id}/stop`), 409)).error.code).toBe('turn_not_running');
    expect((await json<ErrorJson>(await api.call('alice', 'POST', `/sessions/${id}/stop`, { now: true }), 400)).error.code).toBe('invalid_body');
  });
});

describe('GET /sessions/{id}/events', () => {
  it('lets a client that went away follow the running turn from where it left, to the end, from the store', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ toolCalls: [{ id: 'toolu_follow', name: 'current_time', input: {} }] }, { text: 'It is late now.', pauseAfterDeltas: 1 });
    const { abort, before } = await streamUntilFirstDelta(id, { text: 'what time is it?' });
    // The first connection saw the prompt, the tool round, and the start of the answer; then it dropped.
    expect(before.filter((event) => event.event === 'message')).toHaveLength(3);
    abort();

    const seen = await contents(id);
    expect(seen.turn).toMatchObject({ running: true });
    expect(seen.entry_count).toBe(3);
    const follow = await api.call('alice', 'GET', `/sessions/${id}/events?from=${seen.entry_count}`);
    expect(follow.status).toBe(200);
    expect(follow.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseReader(follow);
    expect(await events.next()).toEqual({ event: 'turn', data: { turn: seen.turn } });
    api.fake.resume();
    const rest = await events.rest();
    expect(rest.map((event) => event.event)).toEqual(['message', 'end']);
    expect(rest[0]).toMatchObject({ id: '4', data: { message: { role: 'assistant', stop_reason: 'end_turn' } } });
    expect(assistantText((rest[0]!.data as { message: Message }).message)).toBe('It is late now.');
    expect(rest[1]).toEqual({ event: 'end', data: { entry_count: 4, turn: null } });

    const after = await contents(id);
    expect(after.messages.at(-1)).toEqual((rest[0]!.data as { message: Message }).message);
  });

  it('sends the whole running turn, prompt first, when no position is given, and ends at once when none runs', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ text: 'still going', pauseAfterDeltas: 1 });
    const { stream } = await streamUntilFirstDelta(id, { text: 'the prompt' });
    const events = sseReader(await api.call('alice', 'GET', `/sessions/${id}/events`));
    const first = await events.until((event) => event.event === 'message');
    expect(first.at(-1)).toMatchObject({ id: '1', data: { message: { role: 'user', content: 'the prompt' } } });
    api.fake.resume();
    await stream.rest();
    const rest = await events.rest();
    expect(rest.map((event) => event.event)).toEqual(['message', 'end']);

    const idle = await (await api.call('alice', 'GET', `/sessions/${id}/events`)).text();
    expect(idle).toBe('event: turn\ndata: {"turn":null}\n\nevent: end\ndata: {"entry_count":2,"turn":null}\n\n');
  });

  it('answers 404 to another owner and 400 to a bad position, before streaming', async () => {
    const { id } = await api.newSession();
    expect((await json<ErrorJson>(await api.call('bob', 'GET', `/sessions/${id}/events`), 404)).error.code).toBe('session_not_found');
    for (const from of ['-1', 'x', '1.5']) {
      expect((await json<ErrorJson>(await api.call('alice', 'GET', `/sessions/${id}/events?from=${from}`), 400)).error.code).toBe('invalid_query');
    }
    expect(api.logged).toEqual([]);
  });
});
