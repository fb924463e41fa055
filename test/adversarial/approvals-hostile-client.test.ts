/**
 * Attacks on tool approvals (docs/api.md#tool-approvals), the way a hostile client, model or
 * MCP server would try them, against the real app with a real MCP server: deciding another
 * owner's call, deciding twice, forging a tool_call_id (one of another session of your own
 * included), racing many decisions, replaying an Idempotency-Key with another decision (or
 * as another owner), oversized decisions, a prompt racing a decision, a decision for a call
 * left on another branch, a model that gives two calls one id or repeats an id an earlier
 * decision used, and a server that marks a paying tool read-only.
 */
import { serviceMCPServers, toolsWithMCP } from '@panto/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, snapshot, startApi, type ApiHarness } from '../api-harness.js';
import { startPaymentsServer, type PaymentsServer } from '../support/payments-mcp-server.js';

interface TurnJson {
  stop_reason: string;
  pending_approvals?: { tool_call_id: string; input: Record<string, unknown> }[];
}

let payments: PaymentsServer;
let api: ApiHarness;
let calls = 0;

beforeAll(async () => {
  payments = await startPaymentsServer();
  // The operator distrusts the server's word on `refund` (it says it only reads).
  const mcp = serviceMCPServers([{ type: 'http', name: 'payments', url: payments.url, headers: {}, source: 'test' }], () => {});
  api = await startApi('approvals-hostile', { tools: toolsWithMCP(mcp, { payments: { tools: { refund: 'ask' } } }) });
});
afterAll(async () => {
  await api?.close();
  await payments?.close();
});

async function paused(owner = 'alice', to = 'bob'): Promise<{ id: string; call: string }> {
  const { id } = await api.newSession(owner);
  const call = `toolu_hostile_${++calls}`;
  api.fake.enqueue({ toolCalls: [{ id: call, name: 'mcp__payments__pay', input: { to, amount: 9 } }] });
  const turn = await json<TurnJson>(await api.call(owner, 'POST', `/sessions/${id}/messages`, { text: `pay ${to}` }), 200);
  expect(turn.stop_reason).toBe('awaiting_approval');
  return { id, call };
}

const decide = (owner: string, id: string, decisions: object[], headers: Record<string, string> = {}) =>
  api.call(owner, 'POST', `/sessions/${id}/approvals`, { decisions }, headers);
const errorCode = async (response: Response, status: number) => (await json<{ error: { code: string } }>(response, status)).error.code;
const paidTo = (to: string) => payments.payments.filter((payment) => payment.to === to).length;
const pending = async (owner: string, id: string) =>
  (await json<{ pending_approvals: { tool_call_id: string }[] }>(await api.call(owner, 'GET', `/sessions/${id}`), 200)).pending_approvals.map(
    (p) => p.tool_call_id,
  );
const entries = async (owner: string, id: string) =>
  (
    await json<{ entries: { id: string; type: string; message?: { role: string; content?: unknown } }[] }>(
      await api.call(owner, 'GET', `/sessions/${id}/entries`),
      200,
    )
  ).entries;

describe('a hostile client against tool approvals', { timeout: 60_000 }, () => {
  it('cannot decide, read or follow another owner’s waiting call: 404, as for a session that does not exist, and nothing changes', async () => {
    const { id, call } = await paused('alice', 'erin');
    const before = await snapshot(api.aws);
    for (const decision of ['approve', 'deny'])
      expect(await errorCode(await decide('mallory', id, [{ tool_call_id: call, decision }]), 404)).toBe('session_not_found');
    expect(await errorCode(await api.call('mallory', 'GET', `/sessions/${id}`), 404)).toBe('session_not_found');
    expect(await errorCode(await api.call('mallory', 'GET', `/sessions/${id}/events?from=0`), 404)).toBe('session_not_found');
    expect(await snapshot(api.aws)).toEqual(before);
    expect(await pending('alice', id)).toEqual([call]);
    expect(paidTo('erin')).toBe(0);
  });

  it('cannot carry a call id over from another session, even its own: a call is decided only in the session that waits on it', async () => {
    const mine = await paused('mallory', 'frank');
    const theirs = await paused('alice', 'gina');
    expect(await errorCode(await decide('mallory', mine.id, [{ tool_call_id: theirs.call, decision: 'approve' }]), 409)).toBe('approval_not_pending');
    expect(await errorCode(await decide('mallory', mine.id, [{ tool_call_id: `${mine.call}\u0000`, decision: 'approve' }]), 409)).toBe('approval_not_pending');
    expect(await pending('mallory', mine.id)).toEqual([mine.call]);
    expect(await pending('alice', theirs.id)).toEqual([theirs.call]);
    expect(paidTo('frank') + paidTo('gina')).toBe(0);
  });

  it('cannot decide twice: the second decision — the same or the other way — is 409 and runs nothing', async () => {
    const { id, call } = await paused('alice', 'hank');
    api.fake.enqueue({ text: 'paid' });
    await json(await decide('alice', id, [{ tool_call_id: call, decision: 'approve' }]), 200);
    for (const decision of ['approve', 'deny'])
      expect(await errorCode(await decide('alice', id, [{ tool_call_id: call, decision }]), 409)).toBe('approval_not_pending');
    expect(paidTo('hank')).toBe(1);
  });

  it('races ten decisions at once: exactly one wins, one approval entry is stored, and the call runs at most once', async () => {
    const { id, call } = await paused('alice', 'ivan');
    // Only the winner calls the model again.
    api.fake.enqueue({ text: 'raced' });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => decide('alice', id, [{ tool_call_id: call, decision: i % 2 === 0 ? 'approve' : 'deny' }])),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect(answer.status).toBe(409);
      expect(['session_busy', 'approval_not_pending', 'session_conflict']).toContain(((await answer.json()) as { error: { code: string } }).error.code);
    }
    const log = await entries('alice', id);
    expect(log.filter((entry) => entry.type === 'approval')).toHaveLength(1);
    expect(paidTo('ivan')).toBeLessThanOrEqual(1);
  });

  it('cannot slip a prompt in while a decision is stored: the prompt is refused, the call decided once, run at most once', async () => {
    const { id, call } = await paused('alice', 'nina');
    api.fake.enqueue({ text: 'paid nina' });
    const [decision, prompt] = await Promise.all([
      decide('alice', id, [{ tool_call_id: call, decision: 'approve' }]),
      api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'forget it, tell me a joke' }),
    ]);
    expect(decision.status).toBe(200);
    expect(['approval_pending', 'session_busy']).toContain(await errorCode(prompt, 409));
    const log = await entries('alice', id);
    expect(log.filter((entry) => entry.type === 'approval')).toHaveLength(1);
    expect(log.filter((entry) => entry.message?.role === 'user').map((entry) => entry.message?.content)).toEqual(['pay nina']);
    expect(paidTo('nina')).toBe(1);
  });

  it('cannot decide a call left on another branch: 409 and nothing runs; back on its branch, it waits again', async () => {
    const { id, call } = await paused('alice', 'owen');
    const [prompt] = await entries('alice', id);
    const tip = (await json<{ active_leaf: string }>(await api.call('alice', 'GET', `/sessions/${id}/tree`), 200)).active_leaf;
    // Away from the paused point: nothing waits on the active branch.
    await json(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: prompt!.id }), 200);
    expect(await pending('alice', id)).toEqual([]);
    expect(await errorCode(await decide('alice', id, [{ tool_call_id: call, decision: 'approve' }]), 409)).toBe('approval_not_pending');
    expect(paidTo('owen')).toBe(0);
    await json(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: tip }), 200);
    expect(await pending('alice', id)).toEqual([call]);
  });

  it('asks again when a model repeats, in a later pause, the id of a call already approved and run: an old decision decides nothing new', async () => {
    const { id, call } = await paused('alice', 'pam');
    api.fake.enqueue({ text: 'paid pam' });
    await json(await decide('alice', id, [{ tool_call_id: call, decision: 'approve' }]), 200);
    api.fake.enqueue({ toolCalls: [{ id: call, name: 'mcp__payments__pay', input: { to: 'pam', amount: 900 } }] });
    const again = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'pay pam more' }), 200);
    expect(again.pending_approvals?.map((waiting) => waiting.input)).toEqual([{ to: 'pam', amount: 900 }]);
    // Read back from the store (as a reload, or the decision's own turn, does): still waiting, not taken as decided.
    expect(await pending('alice', id)).toEqual([call]);
    expect(paidTo('pam')).toBe(1);
    api.fake.enqueue({ text: 'not paid' });
    await json(await decide('alice', id, [{ tool_call_id: call, decision: 'deny' }]), 200);
    expect(paidTo('pam')).toBe(1);
  });

  it('cannot replay an Idempotency-Key with another decision (422), nor use another owner’s key to read its answer', async () => {
    const { id, call } = await paused('alice', 'judy');
    api.fake.enqueue({ text: 'denied' });
    const key = { 'idempotency-key': `hostile-${call}` };
    const first = await decide('alice', id, [{ tool_call_id: call, decision: 'deny' }], key);
    expect(first.status).toBe(200);
    expect(await errorCode(await decide('alice', id, [{ tool_call_id: call, decision: 'approve' }], key), 422)).toBe('idempotency_key_reused');
    // Keys are per owner: Mallory's request under Alice's key is Mallory's own, and her session's answer is a 404.
    expect(await errorCode(await decide('mallory', id, [{ tool_call_id: call, decision: 'deny' }], key), 404)).toBe('session_not_found');
    expect(paidTo('judy')).toBe(0);
  });

  it('refuses oversized decisions before reading the session', async () => {
    const { id, call } = await paused('alice', 'kate');
    expect(await errorCode(await decide('alice', id, [{ tool_call_id: 'x'.repeat(513), decision: 'approve' }]), 400)).toBe('invalid_body');
    const many = Array.from({ length: 129 }, (_, i) => ({ tool_call_id: `${call}-${i}`, decision: 'deny' }));
    expect(await errorCode(await decide('alice', id, many), 400)).toBe('invalid_body');
    expect(await errorCode(await decide('alice', id, [{ tool_call_id: call, decision: 'deny', reason: 'r'.repeat(2001) }]), 400)).toBe('invalid_body');
    expect(await errorCode(await decide('alice', id, [{ tool_call_id: call, decision: 'approve', extra: true }]), 400)).toBe('invalid_body');
    expect(await pending('alice', id)).toEqual([call]);
  });

  it('shows every call a model gave one id, so a person never approves an input it did not see', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({
      toolCalls: [
        { id: 'toolu_twin', name: 'mcp__payments__pay', input: { to: 'leo', amount: 1 } },
        { id: 'toolu_twin', name: 'mcp__payments__pay', input: { to: 'leo', amount: 1000 } },
      ],
    });
    const turn = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'pay leo' }), 200);
    const inputs = [
      { to: 'leo', amount: 1 },
      { to: 'leo', amount: 1000 },
    ];
    expect(turn.pending_approvals?.map((call) => call.input)).toEqual(inputs);
    const session = await json<TurnJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    expect(session.pending_approvals?.map((call) => call.input)).toEqual(inputs);
    expect(paidTo('leo')).toBe(0);
  });

  it('asks for a tool its server marks read-only when the operator says it asks (the server’s word is a hint)', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ toolCalls: [{ id: 'toolu_refund', name: 'mcp__payments__refund', input: { to: 'mia', amount: 50 } }] });
    const turn = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'refund mia' }), 200);
    expect(turn.stop_reason).toBe('awaiting_approval');
    expect(payments.payments.filter((payment) => payment.to === 'mia')).toEqual([]);
  });
});
