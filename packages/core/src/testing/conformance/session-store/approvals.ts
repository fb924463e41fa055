import { expect, it } from 'vitest';
import { usage } from '../../fixtures.js';
import type { StoreSuite } from './suite.js';

/** Tool calls that wait for a person's decision: kept waiting across a reload, and never waiting again once decided. */
export function describeApprovalContract({ factory, records }: StoreSuite): void {
  it('keeps a call that waits for approval waiting across a reload, and reads an approved one with no result as interrupted', async () => {
    const store = await factory.create();
    const f = records();
    await store.appendMessages([
      f.user('pay it'),
      f.message({
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'c1', name: 'pay', input: { amount: 5 } }],
        provider: 'scripted',
        model: 'scripted-1',
        usage: usage(1, 1),
        stop_reason: 'awaiting_approval',
        approval_requests: [{ tool_call_id: 'c1', reason: 'it pays' }],
      }),
    ]);
    const waiting = await (await factory.reopen(store)).loadConversation();
    expect(waiting.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(waiting.conversation.messages[1]).toMatchObject({
      stop_reason: 'awaiting_approval',
      approval_requests: [{ tool_call_id: 'c1', reason: 'it pays' }],
    });
    const decided = f.user('placeholder');
    await store.appendMessages([{ type: 'approval', id: decided.id, timestamp: decided.timestamp, decisions: [{ tool_call_id: 'c1', decision: 'approve' }] }]);
    const loaded = await (await factory.reopen(store)).loadConversation();
    expect(loaded.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_result']);
    expect(loaded.conversation.messages[2]).toMatchObject({ tool_call_id: 'c1', is_error: true });
    const tree = await store.loadTree();
    expect(tree.entries.at(-1)).toMatchObject({ type: 'approval', decisions: [{ tool_call_id: 'c1', decision: 'approve' }] });
  });
}
