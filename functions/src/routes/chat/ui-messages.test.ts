import { type RecordEntry, SessionTree } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { chatOpening } from './chat-request.js';
import { chatMessages } from './ui-messages.js';

const usage = { input_tokens: 1, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0 };
const at = '2026-12-01T00:00:00.000Z';
const id = (n: number): string => `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`;

/** A pay call that asked, was approved, ran, and was answered; then a second prompt. */
function entries(): RecordEntry[] {
  return [
    { type: 'message', id: id(1), parent_id: null, timestamp: at, message: { role: 'user', content: 'pay bob' } },
    {
      type: 'message',
      id: id(2),
      parent_id: id(1),
      timestamp: at,
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'tool_call', id: 'call_pay', name: 'pay', input: { to: 'bob' } },
          { type: 'tool_call', id: 'call_log', name: 'log', input: {} },
        ],
        provider: 'anthropic',
        model: 'claude-test',
        usage,
        stop_reason: 'awaiting_approval',
        approval_requests: [
          { tool_call_id: 'call_pay', reason: 'it pays' },
          { tool_call_id: 'call_log', reason: 'it writes' },
        ],
      },
    },
    {
      type: 'approval',
      id: id(3),
      parent_id: id(2),
      timestamp: at,
      decisions: [
        { tool_call_id: 'call_pay', decision: 'approve' },
        { tool_call_id: 'call_log', decision: 'deny', reason: 'no' },
      ],
    },
    {
      type: 'message',
      id: id(4),
      parent_id: id(3),
      timestamp: at,
      message: { role: 'tool_result', tool_call_id: 'call_log', tool_name: 'log', content: 'denied', is_error: true },
    },
    {
      type: 'message',
      id: id(5),
      parent_id: id(4),
      timestamp: at,
      message: { role: 'tool_result', tool_call_id: 'call_pay', tool_name: 'pay', content: 'paid', is_error: false },
    },
    {
      type: 'message',
      id: id(6),
      parent_id: id(5),
      timestamp: at,
      message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }], provider: 'anthropic', model: 'claude-test', usage, stop_reason: 'end_turn' },
    },
    { type: 'message', id: id(7), parent_id: id(6), timestamp: at, message: { role: 'user', content: 'thanks' } },
  ] as RecordEntry[];
}

describe('the session as UIMessage[]', () => {
  it('makes a prompt a user message and everything that answers it one assistant message of steps, with each call in its final state', () => {
    const messages = chatMessages(SessionTree.of(entries()), null);
    expect(messages.map((message) => [message.id, message.role])).toEqual([
      [id(1), 'user'],
      [`${id(1)}:answer`, 'assistant'],
      [id(7), 'user'],
    ]);
    expect(messages[1]!.parts).toEqual([
      { type: 'step-start' },
      { type: 'reasoning', text: 'hmm', state: 'done' },
      {
        type: 'dynamic-tool',
        toolName: 'pay',
        toolCallId: 'call_pay',
        input: { to: 'bob' },
        state: 'output-available',
        output: 'paid',
        approval: { id: 'call_pay', approved: true },
      },
      {
        type: 'dynamic-tool',
        toolName: 'log',
        toolCallId: 'call_log',
        input: {},
        state: 'output-denied',
        approval: { id: 'call_log', approved: false, reason: 'no' },
      },
      { type: 'step-start' },
      { type: 'text', text: 'Done.', state: 'done' },
    ]);
    expect(messages[1]!.metadata).toMatchObject({ usage: { input_tokens: 2, output_tokens: 4 }, cost_usd: null, stop_reason: 'end_turn' });
  });

  it('shows waiting calls as approval requests, and leaves out what a running turn wrote after its opening', () => {
    const waiting = chatMessages(SessionTree.of(entries().slice(0, 2)), null);
    expect(waiting[1]!.parts.filter((part) => part.type === 'dynamic-tool').map((part) => part.state)).toEqual(['approval-requested', 'approval-requested']);
    // The decisions (entry 2) opened the running turn: shown decided, nothing after them.
    const running = chatMessages(SessionTree.of(entries()), 2);
    expect(running).toHaveLength(2);
    expect(running[1]!.parts.filter((part) => part.type === 'dynamic-tool').map((part) => part.state)).toEqual(['approval-responded', 'output-denied']);
  });
});

describe('what a POST /chat body opens', () => {
  const tree = async () => SessionTree.of(entries());
  const user = (text: string, messageId = 'client') => ({ id: messageId, role: 'user' as const, parts: [{ type: 'text', text }] });

  it('takes the newest user message as the prompt, and a regenerate as the stored prompt asked again from its parent', async () => {
    expect(await chatOpening({ id: 'x', trigger: 'submit-message', messages: [user('old'), user('new')] }, tree)).toEqual({ type: 'prompt', text: 'new' });
    expect(await chatOpening({ id: 'x', trigger: 'regenerate-message', messages: [user('forged', id(7))] }, tree)).toEqual({
      type: 'prompt',
      text: 'thanks',
      parentId: id(6),
    });
    // By place among the path's prompts when the id is the page's own.
    expect(await chatOpening({ id: 'x', trigger: 'regenerate-message', messages: [user('a'), user('b')] }, tree)).toEqual({
      type: 'prompt',
      text: 'thanks',
      parentId: id(6),
    });
  });

  it('refuses a body it cannot read as a prompt or decisions', async () => {
    await expect(chatOpening({ id: 'x', trigger: 'submit-message', messages: [user('  ')] }, tree)).rejects.toThrow(/no text/);
    await expect(chatOpening({ id: 'x', trigger: 'submit-message', messages: [user('\ud800')] }, tree)).rejects.toThrow(/lone surrogate/);
    const asked = { id: 'a', role: 'assistant' as const, parts: [{ type: 'dynamic-tool', toolCallId: 'c', state: 'approval-requested' }] };
    await expect(chatOpening({ id: 'x', trigger: 'submit-message', messages: [asked] }, tree)).rejects.toThrow(/no approval response/);
    const twice = {
      ...asked,
      parts: [0, 1].map(() => ({ type: 'dynamic-tool', toolCallId: 'c', state: 'approval-responded', approval: { id: 'c', approved: true } })),
    };
    await expect(chatOpening({ id: 'x', trigger: 'submit-message', messages: [twice] }, tree)).rejects.toThrow(/more than once/);
    await expect(chatOpening({ id: 'x', trigger: 'regenerate-message', messages: [user('a'), user('b'), user('c')] }, tree)).rejects.toThrow(
      /not one of this session/,
    );
  });
});
