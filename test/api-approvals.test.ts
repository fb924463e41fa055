/**
 * Tool approvals on the HTTP API, with real MCP servers: the app on loopback (DynamoDB Local,
 * s3rver, a fake model behind the real Anthropic SDK), a payments server of our own (`pay`
 * asks: no annotations; `balance` does not: read-only) and the "everything" server, whose
 * `get-sum` the operator's rules make ask. Leases on a frozen clock: a day passes when the
 * test says so. The crash cases run a second app on the same table, as another Lambda would.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { Message } from '@panto/core';
import { ManualClock, waitUntil } from '@panto/core/testing';
import { MCPServers } from '@panto/core/mcp';
import { SERVICE_MCP_OPTIONS, toolsWithMCP, type MCPApprovalRules } from '@panto/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, parseSSE, startApi, type ApiHarness } from './api-harness.js';
import { startEverythingHTTP, type RunningHTTPServer } from './mcp-harness.js';
import { startPaymentsServer, type PaymentsServer } from './support/payments-mcp-server.js';

interface PendingJson {
  tool_call_id: string;
  tool: string;
  input: Record<string, unknown>;
  reason: string;
}
interface TurnJson {
  messages: (Message & { id?: string })[];
  stop_reason: string;
  incomplete: boolean;
  pending_approvals?: PendingJson[];
  approval?: { id: string; decisions: { tool_call_id: string; decision: string; reason?: string }[] };
}
interface SessionJson {
  messages: (Message & { id?: string })[];
  pending_approvals: PendingJson[];
  turn: unknown;
  entry_count: number;
}

const RULES: MCPApprovalRules = { everything: { tools: { 'get-sum': 'ask' } } };
const PAY_REASON = 'the MCP server "payments" does not mark "pay" as read-only, so it may change something';
const PRICED = { provider: 'anthropic', model: 'claude-sonnet-5-5' };
/** A daily budget, so that each turn's reservation is written to the day's totals (and must be released). */
const LIMITS = { dailyUsd: 1000, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null };
/** The fake model's price, which a dollar budget needs (an unpriced model is refused under one: docs/api.md, "Limits"). */
const PRICES = { 'anthropic/claude-test': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };

let payments: PaymentsServer;
let everything: RunningHTTPServer;
let clock: ManualClock;
let api: ApiHarness;
let calls = 0;

/**
 * The tools of one app (one process): its own connections to the MCP servers, and the rules.
 * As the service connects, but with 30 s to connect instead of 5: on a loaded test machine the
 * everything server can take longer to answer its first handshake.
 */
function tools() {
  const servers = new MCPServers(
    [
      { type: 'http', name: 'payments', url: payments.url, headers: {}, source: 'test' },
      { type: 'http', name: 'everything', url: everything.url, headers: {}, source: 'test' },
    ],
    { ...SERVICE_MCP_OPTIONS, connectTimeoutMs: 30_000, sdk: () => import('@panto/core/mcp/sdk') },
  );
  return toolsWithMCP(servers, RULES);
}

/** A second app on the same table and clock: another process (a Lambda instance). */
function anotherApp(name: string, options: Parameters<typeof startApi>[1] = {}): Promise<ApiHarness> {
  return startApi(name, { tools: tools(), clock, aws: api.aws, limits: { eventsPollMs: 20 }, usageLimits: LIMITS, modelPrices: PRICES, ...options });
}

beforeAll(async () => {
  [payments, everything] = await Promise.all([startPaymentsServer(), startEverythingHTTP()]);
  clock = new ManualClock(Date.now());
  api = await startApi('api-approvals', { tools: tools(), clock, limits: { eventsPollMs: 20 }, usageLimits: LIMITS, modelPrices: PRICES });
});
afterAll(async () => {
  await api?.close();
  await Promise.all([payments?.close(), everything?.stop()]);
});

/** A session whose turn paused on `pay` (5 to bob), after `balance` ran. */
async function pausedSession(app = api, owner = 'alice', body: object = {}): Promise<{ id: string; call: string; turn: TurnJson }> {
  const { id } = await app.newSession(owner, body);
  const call = `toolu_pay_${++calls}`;
  app.fake.enqueue({
    toolCalls: [
      { id: call, name: 'mcp__payments__pay', input: { to: 'bob', amount: 5 } },
      { id: `toolu_balance_${calls}`, name: 'mcp__payments__balance', input: {} },
    ],
  });
  const turn = await json<TurnJson>(await app.call(owner, 'POST', `/sessions/${id}/messages`, { text: 'pay bob 5, then show the balance' }), 200);
  return { id, call, turn };
}

function decide(app: ApiHarness, id: string, decisions: object[], headers: Record<string, string> = {}, owner = 'alice'): Promise<Response> {
  return app.call(owner, 'POST', `/sessions/${id}/approvals`, { decisions }, headers);
}

async function read(app: ApiHarness, id: string, owner = 'alice'): Promise<SessionJson> {
  return json<SessionJson>(await app.call(owner, 'GET', `/sessions/${id}`), 200);
}

async function entries(app: ApiHarness, id: string): Promise<{ type: string; decisions?: unknown }[]> {
  return (await json<{ entries: { type: string; decisions?: unknown }[] }>(await app.call('alice', 'GET', `/sessions/${id}/entries?limit=500`), 200)).entries;
}

/** The messages of the last request the model got. */
function lastRequestMessages(app: ApiHarness): unknown[] {
  return (app.fake.requests.at(-1)?.body as { messages?: unknown[] } | undefined)?.messages ?? [];
}

const results = (messages: readonly Message[]) => messages.flatMap((m) => (m.role === 'tool_result' ? [[m.tool_name, m.content, m.is_error] as const] : []));

describe('tool approvals on the service', { timeout: 60_000 }, () => {
  it('pauses a turn at a call that asks: the read-only call runs, the other waits, and the turn answers awaiting_approval with pending_approvals', async () => {
    const before = api.fake.requests.length;
    const { id, call, turn } = await pausedSession();
    expect(turn).toMatchObject({ stop_reason: 'awaiting_approval', incomplete: false });
    expect(turn.pending_approvals).toEqual([{ tool_call_id: call, tool: 'mcp__payments__pay', input: { to: 'bob', amount: 5 }, reason: PAY_REASON }]);
    expect(turn.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_result']);
    expect(turn.messages[1]).toMatchObject({
      stop_reason: 'awaiting_approval',
      raw_stop_reason: 'tool_use',
      approval_requests: [{ tool_call_id: call, reason: PAY_REASON }],
    });
    expect(results(turn.messages)).toEqual([['mcp__payments__balance', '0 payments: none', false]]);
    expect(payments.payCalls()).toBe(0);
    expect(api.fake.requests.length - before).toBe(1);
    // The session says so to any reader, and holds no lease: no turn runs while a person thinks.
    const session = await read(api, id);
    expect(session.pending_approvals).toEqual(turn.pending_approvals);
    expect(session.turn).toBeNull();
    expect(session.messages.at(-1)).toMatchObject({ role: 'tool_result', tool_name: 'mcp__payments__balance' });
  });

  it('never asks for current_time: it runs at once beside a call that waits', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({
      toolCalls: [
        { id: 'toolu_time', name: 'current_time', input: {} },
        { id: 'toolu_pay_time', name: 'mcp__payments__pay', input: { to: 'tim', amount: 1 } },
      ],
    });
    const turn = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'what time is it? then pay tim' }), 200);
    expect(turn.stop_reason).toBe('awaiting_approval');
    expect(turn.pending_approvals?.map((pending) => pending.tool)).toEqual(['mcp__payments__pay']);
    expect(results(turn.messages).map(([tool, , isError]) => [tool, isError])).toEqual([['current_time', false]]);
  });

  it('runs an approved call once, stores the decision before it, and goes on as a turn does', async () => {
    const { id, call } = await pausedSession();
    api.fake.enqueue({ text: 'Paid bob 5.' });
    const paidBefore = payments.payments.length;
    const turn = await json<TurnJson>(await decide(api, id, [{ tool_call_id: call, decision: 'approve' }]), 200);
    expect(turn).toMatchObject({ stop_reason: 'end_turn', incomplete: false, approval: { decisions: [{ tool_call_id: call, decision: 'approve' }] } });
    expect(turn.pending_approvals).toBeUndefined();
    expect(results(turn.messages)).toEqual([['mcp__payments__pay', `Paid 5 to bob (payment ${paidBefore + 1})`, false]]);
    expect(turn.messages.at(-1)).toMatchObject({ role: 'assistant', stop_reason: 'end_turn' });
    expect(payments.payments.length).toBe(paidBefore + 1);
    // The model saw every result of its message, in one round.
    const sent = lastRequestMessages(api);
    expect(JSON.stringify(sent.at(-1))).toContain(`Paid 5 to bob`);
    expect(JSON.stringify(sent.at(-1))).toContain('0 payments: none');
    expect((await entries(api, id)).map((entry) => entry.type)).toEqual(['message', 'message', 'message', 'approval', 'message', 'message']);
    expect((await read(api, id)).pending_approvals).toEqual([]);
  });

  it('records a denial as an error result the model sees, with the reason, and never runs the call', async () => {
    const { id, call } = await pausedSession();
    api.fake.enqueue({ text: 'I did not pay.' });
    const calledBefore = payments.payCalls();
    const turn = await json<TurnJson>(await decide(api, id, [{ tool_call_id: call, decision: 'deny', reason: 'bob was paid yesterday' }]), 200);
    expect(results(turn.messages)).toEqual([['mcp__payments__pay', 'Tool call denied: bob was paid yesterday. It was not run.', true]]);
    expect(turn.stop_reason).toBe('end_turn');
    expect(payments.payCalls()).toBe(calledBefore);
    const sent = JSON.stringify(lastRequestMessages(api).at(-1));
    expect(sent).toContain('Tool call denied: bob was paid yesterday');
  });

  it('pauses again when the resumed turn reaches another call that asks — here one the operator’s rules make ask (get-sum), next to a read-only one (echo)', async () => {
    const { id, call } = await pausedSession();
    api.fake.enqueue({
      toolCalls: [
        { id: 'toolu_sum', name: 'mcp__everything__get-sum', input: { a: 40, b: 2 } },
        { id: 'toolu_echo', name: 'mcp__everything__echo', input: { message: 'hi' } },
      ],
    });
    const turn = await json<TurnJson>(await decide(api, id, [{ tool_call_id: call, decision: 'deny' }]), 200);
    expect(turn.stop_reason).toBe('awaiting_approval');
    expect(turn.pending_approvals).toEqual([
      {
        tool_call_id: 'toolu_sum',
        tool: 'mcp__everything__get-sum',
        input: { a: 40, b: 2 },
        reason: 'the operator asks for approval of every call of "get-sum" (MCP server "everything")',
      },
    ]);
    expect(results(turn.messages)).toEqual([
      ['mcp__payments__pay', 'Tool call denied: the user did not approve it. It was not run.', true],
      ['mcp__everything__echo', 'Echo: hi', false],
    ]);
    api.fake.enqueue({ text: '42' });
    const last = await json<TurnJson>(await decide(api, id, [{ tool_call_id: 'toolu_sum', decision: 'approve' }]), 200);
    expect(results(last.messages)).toEqual([['mcp__everything__get-sum', 'The sum of 40 and 2 is 42.', false]]);
  });

  it('streams a resumed turn: the approval entry, each message as it is stored, and one end', async () => {
    const { id, call } = await pausedSession();
    api.fake.enqueue({ text: 'Paid, streamed.' });
    const response = await api.call('alice', 'POST', `/sessions/${id}/approvals/stream`, { decisions: [{ tool_call_id: call, decision: 'approve' }] });
    expect(response.status).toBe(200);
    const events = parseSSE(await response.text());
    expect(events.map((event) => event.event).filter((name) => name !== 'text-delta')).toEqual(['approval', 'message', 'message', 'end']);
    expect(events[0]?.data).toMatchObject({ approval: { decisions: [{ tool_call_id: call, decision: 'approve' }] } });
    expect(events.at(-1)?.data).toMatchObject({ stop_reason: 'end_turn', incomplete: false });
    // Refused before the stream starts: a second decision is a real 409.
    const again = await api.call('alice', 'POST', `/sessions/${id}/approvals/stream`, { decisions: [{ tool_call_id: call, decision: 'approve' }] });
    expect(await json<{ error: { code: string } }>(again, 409)).toMatchObject({ error: { code: 'approval_not_pending' } });
  });

  it('lets a follower see the pause (its end names the waiting calls) and the resumed turn (an approval event, then its messages)', async () => {
    const { id, call } = await pausedSession();
    const paused = parseSSE(await (await api.call('alice', 'GET', `/sessions/${id}/events?from=0`)).text());
    expect(paused.at(-1)).toEqual({ event: 'end', data: { entry_count: 3, turn: null, pending_approvals: [expect.objectContaining({ tool_call_id: call })] } });
    payments.hold();
    api.fake.enqueue({ text: 'Paid while you watched.' });
    const deciding = decide(api, id, [{ tool_call_id: call, decision: 'approve' }]);
    try {
      await waitUntil(async () => (await read(api, id)).turn !== null, { message: 'the resumed turn to run' });
      const following = api.call('alice', 'GET', `/sessions/${id}/events?from=3`);
      await waitUntil(() => payments.payCalls() > 0, { message: 'the payment to be in flight' });
      payments.release();
      const events = parseSSE(await (await following).text());
      expect(events.map((event) => event.event).filter((name) => name !== 'partial')).toEqual(['turn', 'approval', 'message', 'message', 'end']);
      expect(events.find((event) => event.event === 'approval')?.data).toMatchObject({
        approval: { decisions: [{ tool_call_id: call, decision: 'approve' }] },
      });
      expect(events.at(-1)?.data).toEqual({ entry_count: 6, turn: null });
    } finally {
      payments.release();
      await deciding;
    }
  });

  it('keeps the call waiting after a reload and after a day: another process, a day later, decides it', async () => {
    const { id, call } = await pausedSession(api, 'alice', PRICED);
    const day = (at: number) => new Date(at).toISOString().slice(0, 10);
    const pausedDay = day(clock.now());
    // The paused turn settled: its reservation is released and it is counted, though its call waits.
    const ledger = await api.aws.dynamo.send(
      new GetItemCommand({ TableName: api.aws.tableName, Key: { pk: { S: 'OWNER#alice' }, sk: { S: `USAGE#D#${pausedDay}` } }, ConsistentRead: true }),
    );
    expect(Number(ledger.Item?.reserved_usd?.N)).toBe(0);
    expect(Number(ledger.Item?.turns?.N)).toBeGreaterThan(0);
    clock.advance(25 * 3600 * 1000);
    const later = await anotherApp('api-approvals-later');
    try {
      const session = await read(later, id);
      expect(session.pending_approvals.map((pending) => [pending.tool_call_id, pending.reason])).toEqual([[call, PAY_REASON]]);
      later.fake.enqueue({ text: 'Paid a day later.' });
      const turn = await json<TurnJson>(await decide(later, id, [{ tool_call_id: call, decision: 'approve' }]), 200);
      expect(turn.stop_reason).toBe('end_turn');
      expect(results(turn.messages)[0]?.[1]).toMatch(/^Paid 5 to bob/);
      const usage = await json<{ today: { turns: number } }>(await later.call('alice', 'GET', '/usage'), 200);
      expect(day(clock.now())).not.toBe(pausedDay);
      expect(usage.today.turns).toBe(1);
    } finally {
      await later.close();
    }
  });

  it('refuses a new prompt and a compaction while calls wait (409 approval_pending), writing nothing, and takes a prompt once they are decided', async () => {
    const { id, call } = await pausedSession();
    const before = await read(api, id);
    const prompt = await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'never mind, tell me a joke' });
    expect(await json<{ error: { code: string; message: string } }>(prompt, 409)).toEqual({
      error: {
        code: 'approval_pending',
        message: `tool calls of this session wait for approval (${call}): decide them with POST /sessions/{id}/approvals first; nothing was written`,
      },
    });
    const streamed = await api.call('alice', 'POST', `/sessions/${id}/messages/stream`, { text: 'a joke, streamed' });
    expect((await json<{ error: { code: string } }>(streamed, 409)).error.code).toBe('approval_pending');
    expect((await json<{ error: { code: string } }>(await api.call('alice', 'POST', `/sessions/${id}/compact`, {}), 409)).error.code).toBe('approval_pending');
    expect((await read(api, id)).entry_count).toBe(before.entry_count);
    api.fake.enqueue({ text: 'Not paid.' }, { text: 'A joke.' });
    await json(await decide(api, id, [{ tool_call_id: call, decision: 'deny' }]), 200);
    expect((await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'a joke now' }), 200)).stop_reason).toBe('end_turn');
  });

  it('answers decisions that do not fit with a clear 4xx and writes nothing', async () => {
    const { id: fresh } = await api.newSession();
    expect((await json<{ error: { code: string } }>(await decide(api, fresh, [{ tool_call_id: 'toolu_x', decision: 'approve' }]), 409)).error.code).toBe(
      'approval_not_pending',
    );
    const { id } = await api.newSession();
    api.fake.enqueue({
      toolCalls: [
        { id: 'toolu_a', name: 'mcp__payments__pay', input: { to: 'ann', amount: 1 } },
        { id: 'toolu_b', name: 'mcp__payments__pay', input: { to: 'ben', amount: 2 } },
      ],
    });
    const turn = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'pay both' }), 200);
    expect(turn.pending_approvals?.map((pending) => pending.tool_call_id)).toEqual(['toolu_a', 'toolu_b']);
    const count = (await read(api, id)).entry_count;
    const refused = async (decisions: object[], status: number) =>
      (await json<{ error: { code: string; message: string } }>(await decide(api, id, decisions), status)).error;
    expect(await refused([{ tool_call_id: 'toolu_a', decision: 'approve' }], 409)).toEqual({
      code: 'approval_undecided',
      message: 'every waiting tool call must be decided at once; undecided: toolu_b; nothing was written',
      field: 'decisions',
    });
    expect(
      await refused(
        [
          { tool_call_id: 'toolu_a', decision: 'approve' },
          { tool_call_id: 'toolu_b', decision: 'deny' },
          { tool_call_id: 'toolu_forged', decision: 'approve' },
        ],
        409,
      ),
    ).toMatchObject({ code: 'approval_not_pending', message: expect.stringContaining('toolu_forged') });
    expect(
      await refused(
        [
          { tool_call_id: 'toolu_a', decision: 'approve' },
          { tool_call_id: 'toolu_a', decision: 'deny' },
        ],
        400,
      ),
    ).toMatchObject({ code: 'invalid_body', message: 'decisions: a tool call is decided more than once' });
    expect(await refused([{ tool_call_id: 'toolu_a', decision: 'yes' }], 400)).toMatchObject({ code: 'invalid_body' });
    expect(await refused([], 400)).toMatchObject({ code: 'invalid_body', message: 'decisions: decide at least one tool call' });
    // Another owner's session, and one that does not exist: the same 404.
    expect(
      (await json<{ error: { code: string } }>(await decide(api, id, [{ tool_call_id: 'toolu_a', decision: 'approve' }], {}, 'mallory'), 404)).error.code,
    ).toBe('session_not_found');
    expect((await read(api, id)).entry_count).toBe(count);
    expect(payments.payments.filter((payment) => payment.to === 'ann' || payment.to === 'ben')).toEqual([]);
  });

  it('replays the first answer for a retried Idempotency-Key without running the call again; another decision under it is 422', async () => {
    const { id, call } = await pausedSession();
    api.fake.enqueue({ text: 'Paid once.' });
    const key = { 'idempotency-key': `approve-${call}` };
    const first = await decide(api, id, [{ tool_call_id: call, decision: 'approve' }], key);
    const firstBody = await first.text();
    expect(first.status).toBe(200);
    const paid = payments.payments.length;
    const replay = await decide(api, id, [{ tool_call_id: call, decision: 'approve' }], key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(firstBody);
    const other = await decide(api, id, [{ tool_call_id: call, decision: 'deny' }], key);
    expect((await json<{ error: { code: string } }>(other, 422)).error.code).toBe('idempotency_key_reused');
    expect(payments.payments.length).toBe(paid);
  });

  it('lets exactly one of two racing decisions from two processes win: one decision stored, the call run at most once', async () => {
    const { id, call } = await pausedSession();
    const other = await anotherApp('api-approvals-race');
    try {
      api.fake.enqueue({ text: 'one' });
      other.fake.enqueue({ text: 'two' });
      const calledBefore = payments.payCalls();
      const answers = await Promise.all([
        decide(api, id, [{ tool_call_id: call, decision: 'approve' }]),
        decide(other, id, [{ tool_call_id: call, decision: 'deny', reason: 'no' }]),
      ]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 409]);
      const loser = await answers.find((answer) => answer.status === 409)!.json();
      expect(['session_busy', 'approval_not_pending', 'session_conflict']).toContain((loser as { error: { code: string } }).error.code);
      expect((await entries(api, id)).filter((entry) => entry.type === 'approval')).toHaveLength(1);
      expect(payments.payCalls() - calledBefore).toBeLessThanOrEqual(1);
      expect((await read(api, id)).pending_approvals).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
