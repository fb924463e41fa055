/**
 * A process that dies while it resumes a paused turn: right after it stored the decision and
 * before the approved call went out, or while the call ran. The first app's DynamoDB client
 * stops answering at that point (a Lambda instance frozen or killed: nothing it sends after
 * arrives), its lease lapses on the frozen clock, and a second app on the same table — another
 * instance — takes over. What must hold: the decision is not lost, the call never runs twice
 * (at most once: a call approved but without a result is never waiting again), and the
 * session goes on.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Message } from '@panto/core';
import { ManualClock, waitUntil } from '@panto/core/testing';
import { DEFAULT_SERVICE_LIMITS, serviceMCPServers, toolsWithMCP } from '@panto/functions';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { json, startApi, type ApiHarness } from './api-harness.js';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';
import { startPaymentsServer, type PaymentsServer } from './support/payments-mcp-server.js';

interface SessionJson {
  messages: (Message & { id?: string })[];
  pending_approvals: unknown[];
}

/** A DynamoDB client that stops answering for good once `kill()` is called, or once it has stored a decision (`dieAfterDecision`). */
function mortalClient(options: { dieAfterDecision: boolean }): { client: DynamoDBClient; kill(): void; readonly dead: boolean } {
  const client = localDynamoDBClient(inject('dynamoEndpoint'));
  let dead = false;
  const never = new Promise<never>(() => {});
  client.middlewareStack.add(
    (next) => async (args) => {
      if (dead) return never;
      const result = await next(args);
      // The transaction that stored an approval entry went through: the process dies before it hears back.
      if (options.dieAfterDecision && JSON.stringify(args.input).includes('\\"decisions\\"')) {
        dead = true;
        return never;
      }
      return result;
    },
    { step: 'initialize', name: 'mortal' },
  );
  return {
    client,
    kill: () => {
      dead = true;
    },
    get dead() {
      return dead;
    },
  };
}

let payments: PaymentsServer;
let aws: LocalAws;
let clock: ManualClock;
const apps: ApiHarness[] = [];

beforeAll(async () => {
  payments = await startPaymentsServer();
  aws = await localAws('approvals-crash');
  clock = new ManualClock(Date.now());
});
afterEach(async () => {
  payments.release();
  await Promise.all(apps.splice(0).map((app) => app.close()));
});
afterAll(async () => {
  await payments?.close();
});

async function app(name: string, dynamo?: DynamoDBClient): Promise<ApiHarness> {
  const tools = toolsWithMCP(serviceMCPServers([{ type: 'http', name: 'payments', url: payments.url, headers: {}, source: 'test' }], () => {}));
  const started = await startApi(name, { tools, clock, aws, ...(dynamo ? { dynamo } : {}) });
  apps.push(started);
  return started;
}

/** A session of `first` whose turn paused on `pay`, and the decision sent to `first` (its answer never awaited: the process dies). */
async function decidedOn(first: ApiHarness, to: string): Promise<{ id: string; call: string }> {
  const { id } = await first.newSession();
  const call = `toolu_pay_${to}`;
  first.fake.enqueue({ toolCalls: [{ id: call, name: 'mcp__payments__pay', input: { to, amount: 7 } }] });
  const turn = await json<{ stop_reason: string }>(await first.call('alice', 'POST', `/sessions/${id}/messages`, { text: `pay ${to} 7` }), 200);
  expect(turn.stop_reason).toBe('awaiting_approval');
  first.fake.enqueue({ text: 'never reached' });
  void first.call('alice', 'POST', `/sessions/${id}/approvals`, { decisions: [{ tool_call_id: call, decision: 'approve' }] }).catch(() => null);
  return { id, call };
}

/** What another process finds once the dead one's lease has lapsed. */
async function takeOver(id: string): Promise<{ second: ApiHarness; session: SessionJson }> {
  clock.advance(DEFAULT_SERVICE_LIMITS.leaseMs + 1_000);
  const second = await app('approvals-crash-second');
  const session = await json<SessionJson>(await second.call('alice', 'GET', `/sessions/${id}`), 200);
  return { second, session };
}

const entryTypes = async (app: ApiHarness, id: string) =>
  (await json<{ entries: { type: string }[] }>(await app.call('alice', 'GET', `/sessions/${id}/entries`), 200)).entries.map((entry) => entry.type);

describe('a crash while a decision resumes a turn', { timeout: 60_000 }, () => {
  it('between the decision and the tool call: the call never runs, the decision stays, no one can approve it again, and the session goes on', async () => {
    const mortal = mortalClient({ dieAfterDecision: true });
    const first = await app('approvals-crash-first', mortal.client);
    const { id, call } = await decidedOn(first, 'carol');
    await waitUntil(() => mortal.dead, { message: 'the decision to be stored' });
    const { second, session } = await takeOver(id);
    expect(session.pending_approvals).toEqual([]);
    expect(session.messages.at(-1)).toMatchObject({
      role: 'tool_result',
      tool_call_id: call,
      is_error: true,
      content: expect.stringMatching(/^Tool call interrupted/),
    });
    expect(await entryTypes(second, id)).toEqual(['message', 'message', 'approval']);
    const again = await second.call('alice', 'POST', `/sessions/${id}/approvals`, { decisions: [{ tool_call_id: call, decision: 'approve' }] });
    expect((await json<{ error: { code: string } }>(again, 409)).error.code).toBe('approval_not_pending');
    second.fake.enqueue({ text: 'The payment may not have gone through.' });
    const next = await json<{ stop_reason: string }>(await second.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'did it work?' }), 200);
    expect(next.stop_reason).toBe('end_turn');
    expect(JSON.stringify(second.fake.requests.at(-1)?.body)).toContain('Tool call interrupted');
    expect(payments.payments.filter((payment) => payment.to === 'carol')).toEqual([]);
    expect(payments.payCalls()).toBe(0);
  });

  it('while the approved call runs: it ran once, and is never run again', async () => {
    const mortal = mortalClient({ dieAfterDecision: false });
    const first = await app('approvals-crash-first', mortal.client);
    payments.hold();
    const before = payments.payCalls();
    const { id, call } = await decidedOn(first, 'dave');
    await waitUntil(() => payments.payCalls() === before + 1, { message: 'the payment to be in flight' });
    mortal.kill();
    payments.release();
    await waitUntil(() => payments.payments.some((payment) => payment.to === 'dave'), { message: 'the payment to be made' });
    const { second, session } = await takeOver(id);
    expect(session.pending_approvals).toEqual([]);
    expect(session.messages.at(-1)).toMatchObject({
      role: 'tool_result',
      tool_call_id: call,
      content: expect.stringMatching(/may or may not have taken effect/),
    });
    const again = await second.call('alice', 'POST', `/sessions/${id}/approvals`, { decisions: [{ tool_call_id: call, decision: 'approve' }] });
    expect((await json<{ error: { code: string } }>(again, 409)).error.code).toBe('approval_not_pending');
    expect(payments.payments.filter((payment) => payment.to === 'dave')).toHaveLength(1);
    expect(payments.payCalls()).toBe(before + 1);
  });
});
