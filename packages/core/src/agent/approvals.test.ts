import { describe, expect, it } from 'vitest';
import { Agent } from './agent.js';
import { ApprovalDecisionError, ApprovalPendingError } from '../errors.js';
import type { AgentEvent } from './events.js';
import type { AppendOptions, DiskMessage, SessionEntry } from '../session/records.js';
import { MemoryStore } from '../stores/memory-store.js';
import { ScriptedProvider } from '../testing/index.js';
import { ToolRegistry, type Tool } from '../tool.js';
import { decodeLine } from '../session/decode-line.js';
import { encodeBatch, withoutFraming } from '../session/format.js';

const frozen = (prefix = 'id') => {
  let n = 0;
  return { clock: () => new Date(Date.UTC(2026, 11, 2, 9, 0, 0)), ids: () => `${prefix}-${++n}` };
};

/** A tool that asks (its calls wait for a person) and one that does not; `ran` lists the calls each ran. */
function tools() {
  const ran: string[] = [];
  const pay: Tool = {
    name: 'pay',
    description: 'Pays',
    input_schema: { type: 'object', properties: { amount: { type: 'number' } } },
    approval: { reason: 'it moves money' },
    execute: async (input) => {
      ran.push(`pay ${String(input.amount)}`);
      return `paid ${String(input.amount)}`;
    },
  };
  const balance: Tool = {
    name: 'balance',
    description: 'Reads the balance',
    input_schema: { type: 'object', properties: {} },
    execute: async () => {
      ran.push('balance');
      return '100';
    },
  };
  return { ran, registry: new ToolRegistry([pay, balance]) };
}

function setup(replies: ConstructorParameters<typeof ScriptedProvider>[0], store = new MemoryStore(frozen('store'))) {
  const provider = new ScriptedProvider(replies);
  const { ran, registry } = tools();
  const agent = new Agent({ provider, tools: registry, ...frozen() }, { store });
  return { provider, store, agent, ran, registry };
}

const kinds = (entries: readonly (DiskMessage | SessionEntry)[]) => entries.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type));

const PAY_AND_BALANCE = {
  toolCalls: [
    { id: 'call-pay', name: 'pay', input: { amount: 5 } },
    { id: 'call-balance', name: 'balance', input: {} },
  ],
};

describe('Agent tool approvals', () => {
  it('pauses a step on a call that asks: the other calls run, the message is committed awaiting_approval, and the provider is not called again', async () => {
    const { agent, store, provider, ran } = setup([PAY_AND_BALANCE, { text: 'never sent' }]);
    await agent.submitUserMessage('pay 5 and show the balance');
    const step = await agent.runStep();
    expect(step).toMatchObject({ stopReason: 'awaiting_approval', incomplete: false, providerCalls: 1 });
    expect(step.pendingApprovals?.map((approval) => [approval.toolCall.id, approval.toolCall.input, approval.reason])).toEqual([
      ['call-pay', { amount: 5 }, 'it moves money'],
    ]);
    expect(ran).toEqual(['balance']);
    expect(provider.requests).toHaveLength(1);
    expect(kinds(store.entries)).toEqual(['user', 'assistant', 'tool_result']);
    const paused = store.entries[1]!;
    expect(paused.type === 'message' && paused.message).toMatchObject({
      role: 'assistant',
      stop_reason: 'awaiting_approval',
      approval_requests: [{ tool_call_id: 'call-pay', reason: 'it moves money' }],
    });
    expect(agent.pendingApprovals().map((approval) => approval.toolCall.id)).toEqual(['call-pay']);
  });

  it('gives the lease up with the paused message: its batch is the step’s last write', async () => {
    const provider = new ScriptedProvider([PAY_AND_BALANCE]);
    const lasts: boolean[] = [];
    class Recording extends MemoryStore {
      override async appendMessages(batch: readonly DiskMessage[], options?: AppendOptions): Promise<void> {
        lasts.push(options?.last === true);
        await super.appendMessages(batch);
      }
    }
    const store = new Recording(frozen('store'));
    const agent = new Agent({ provider, tools: tools().registry, ...frozen() }, { store });
    await agent.submitUserMessage('pay');
    await agent.runStep();
    expect(lasts).toEqual([false, true]);
  });

  it('resumes on approval: the decision is stored before the call runs, then the call, then the model goes on', async () => {
    const { agent, store, ran, provider } = setup([PAY_AND_BALANCE, { text: 'Paid 5; the balance is 100.' }]);
    await agent.submitUserMessage('pay 5');
    await agent.runStep();
    const seen: string[] = [];
    agent.subscribe((event: AgentEvent) => {
      if (event.type === 'entries-persisted') seen.push(...kinds(event.records));
      if (event.type === 'tool-execution-start') seen.push(`run ${event.toolCall.name}`);
    });
    const approval = await agent.decideApprovals([{ tool_call_id: 'call-pay', decision: 'approve', reason: 'fine' }]);
    expect(approval).toMatchObject({ type: 'approval', decisions: [{ tool_call_id: 'call-pay', decision: 'approve', reason: 'fine' }] });
    expect(ran).toEqual(['balance']);
    expect(agent.pendingApprovals()).toEqual([]);
    const step = await agent.runStep();
    expect(step).toMatchObject({ stopReason: 'end_turn', incomplete: false });
    expect(seen).toEqual(['approval', 'run pay', 'tool_result', 'assistant']);
    expect(ran).toEqual(['balance', 'pay 5']);
    expect(kinds(store.entries)).toEqual(['user', 'assistant', 'tool_result', 'approval', 'tool_result', 'assistant']);
    // The model sees every result of its message, and nothing of the approval entry.
    const sent = provider.requests[1]!.messages.map((message) => message.role);
    expect(sent).toEqual(['user', 'assistant', 'tool_result', 'tool_result']);
  });

  it('records a denial as an error result the model sees, with the reason, and never runs the call', async () => {
    const { agent, store, ran, provider } = setup([PAY_AND_BALANCE, { text: 'I did not pay.' }]);
    await agent.submitUserMessage('pay 5');
    await agent.runStep();
    await agent.decideApprovals([{ tool_call_id: 'call-pay', decision: 'deny', reason: 'not this month' }]);
    expect(kinds(store.entries)).toEqual(['user', 'assistant', 'tool_result', 'approval', 'tool_result']);
    await agent.runStep();
    expect(ran).toEqual(['balance']);
    const denial = provider.requests[1]!.messages.at(-1);
    expect(denial).toEqual({
      role: 'tool_result',
      tool_call_id: 'call-pay',
      tool_name: 'pay',
      content: 'Tool call denied: not this month. It was not run.',
      is_error: true,
    });
  });

  it('refuses decisions that are not exactly one per waiting call, writing nothing', async () => {
    const { agent, store } = setup([
      {
        toolCalls: [
          { id: 'a', name: 'pay', input: { amount: 1 } },
          { id: 'b', name: 'pay', input: { amount: 2 } },
        ],
      },
    ]);
    await agent.submitUserMessage('pay twice');
    await agent.runStep();
    const before = store.entries.length;
    const problem = async (decisions: Parameters<Agent['decideApprovals']>[0]) =>
      agent.decideApprovals(decisions).then(
        () => 'accepted',
        (error: unknown) => (error instanceof ApprovalDecisionError ? `${error.problem}: ${error.toolCallIds.join(',')}` : String(error)),
      );
    expect(await problem([{ tool_call_id: 'a', decision: 'approve' }])).toBe('undecided: b');
    expect(
      await problem([
        { tool_call_id: 'a', decision: 'approve' },
        { tool_call_id: 'b', decision: 'deny' },
        { tool_call_id: 'forged', decision: 'approve' },
      ]),
    ).toBe('not_pending: forged');
    expect(
      await problem([
        { tool_call_id: 'a', decision: 'approve' },
        { tool_call_id: 'a', decision: 'deny' },
        { tool_call_id: 'b', decision: 'deny' },
      ]),
    ).toBe('duplicate: a');
    expect(store.entries).toHaveLength(before);
    expect(
      await problem([
        { tool_call_id: 'b', decision: 'deny' },
        { tool_call_id: 'a', decision: 'approve' },
      ]),
    ).toBe('accepted');
    // Written in the message's order, whatever order they came in; a second decision finds nothing waiting.
    const approval = store.entries[before];
    expect(approval?.type === 'approval' && approval.decisions.map((decision) => decision.tool_call_id)).toEqual(['a', 'b']);
    expect(await problem([{ tool_call_id: 'a', decision: 'approve' }])).toBe('none_pending: a');
  });

  it('refuses a prompt, a step, a system message and a compaction while calls wait, writing nothing', async () => {
    const { agent, store } = setup([PAY_AND_BALANCE]);
    await agent.submitUserMessage('pay');
    await agent.runStep();
    const before = store.entries.length;
    await expect(agent.submitUserMessage('something else')).rejects.toBeInstanceOf(ApprovalPendingError);
    await expect(agent.runStep()).rejects.toBeInstanceOf(ApprovalPendingError);
    await expect(agent.addSystemMessage('be brief')).rejects.toBeInstanceOf(ApprovalPendingError);
    await expect(agent.compact()).rejects.toBeInstanceOf(ApprovalPendingError);
    expect(store.entries).toHaveLength(before);
  });

  it('a resumed session still waits: the pending call keeps no synthesized result until decided', async () => {
    const { agent, store } = setup([PAY_AND_BALANCE]);
    await agent.submitUserMessage('pay');
    await agent.runStep();
    const { agent: again } = await Agent.resume(MemoryStore.open(store), { provider: new ScriptedProvider([{ text: 'ok' }]), tools: tools().registry });
    expect(again.pendingApprovals().map((approval) => [approval.toolCall.id, approval.reason])).toEqual([['call-pay', 'it moves money']]);
    expect(again.conversation.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool_result']);
  });

  it('reads an approved call whose result never came (a crash) as interrupted, never as waiting again: it cannot run twice', async () => {
    const { agent, store, ran } = setup([PAY_AND_BALANCE]);
    await agent.submitUserMessage('pay');
    await agent.runStep();
    await agent.decideApprovals([{ tool_call_id: 'call-pay', decision: 'approve' }]);
    // The process dies here, before the call runs: a new process resumes the session.
    const { agent: again } = await Agent.resume(MemoryStore.open(store), { provider: new ScriptedProvider([{ text: 'ok' }]), tools: tools().registry });
    expect(again.pendingApprovals()).toEqual([]);
    expect(again.conversation.messages.at(-1)).toMatchObject({
      role: 'tool_result',
      tool_call_id: 'call-pay',
      is_error: true,
      content: expect.stringMatching(/^Tool call interrupted/),
    });
    await expect(again.decideApprovals([{ tool_call_id: 'call-pay', decision: 'approve' }])).rejects.toMatchObject({ problem: 'none_pending' });
    await again.submitUserMessage('what happened?');
    expect(ran).toEqual(['balance']);
  });

  it('lets the session move on: a branch from an earlier entry leaves the waiting call behind', async () => {
    const { agent, store } = setup([PAY_AND_BALANCE, { text: 'hello again' }]);
    await agent.submitUserMessage('pay');
    await agent.runStep();
    await agent.continueFrom(null);
    await agent.submitUserMessage('start over');
    expect((await agent.runStep()).stopReason).toBe('end_turn');
    // Back on the paused branch, the call waits again.
    await agent.switchLeaf(store.entries[2]!.id);
    expect(agent.pendingApprovals().map((approval) => approval.toolCall.id)).toEqual(['call-pay']);
  });

  it('writes the approval entry and the paused message in the session format, and reads them back the same', async () => {
    const { agent, store } = setup([PAY_AND_BALANCE, { text: 'done' }]);
    await agent.submitUserMessage('pay');
    await agent.runStep();
    await agent.decideApprovals([{ tool_call_id: 'call-pay', decision: 'deny' }]);
    const text = store.entries.map((entry) => encodeBatch([entry])).join('');
    expect(text).toContain('"stop_reason":"awaiting_approval","approval_requests":[{"tool_call_id":"call-pay","reason":"it moves money"}]}}');
    expect(text).toContain(
      '{"type":"approval","id":"id-4","parent_id":"id-3","timestamp":"2026-12-02T09:00:00.000Z","decisions":[{"tool_call_id":"call-pay","decision":"deny"}]}',
    );
    const decoded = text
      .trimEnd()
      .split('\n')
      .map((line, i) => withoutFraming(decodeLine(line, 'test', i + 2, 'incoming')));
    expect(decoded).toEqual(store.entries);
  });
});
