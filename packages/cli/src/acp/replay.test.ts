import { emptyUsage, type Message } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { replayUpdates } from './replay.js';

const assistant = (content: Extract<Message, { role: 'assistant' }>['content']): Message => ({
  role: 'assistant',
  content,
  provider: 'openai',
  model: 'm',
  usage: emptyUsage(),
  stop_reason: 'end_turn',
});

describe('replaying a session for session/load', () => {
  it('gives prompts, thoughts, answers and tool calls with their status and result, leaving out system messages', () => {
    const messages: Message[] = [
      { role: 'system', content: 'You are panto.', mode: 'replace' },
      { role: 'user', content: 'fix it' },
      assistant([
        { type: 'thinking', thinking: 'look first', signature: 's' },
        { type: 'text', text: 'Looking.' },
        { type: 'tool_call', id: 'c1', name: 'edit', input: { path: 'a.ts', old_text: 'x', new_text: 'y' } },
        { type: 'tool_call', id: 'c2', name: 'bash', input: { command: 'false' } },
      ]),
      { role: 'tool_result', tool_call_id: 'c1', tool_name: 'edit', content: 'Edited a.ts', is_error: false },
      { role: 'tool_result', tool_call_id: 'c2', tool_name: 'bash', content: 'exit 1', is_error: true },
      assistant([{ type: 'text', text: 'Fixed.' }]),
    ];
    expect(replayUpdates(messages, '/w')).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'fix it' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'look first' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Looking.' } },
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'c1',
        title: 'edit a.ts',
        kind: 'edit',
        status: 'completed',
        rawInput: { path: 'a.ts', old_text: 'x', new_text: 'y' },
        locations: [{ path: '/w/a.ts' }],
        content: [
          { type: 'diff', path: '/w/a.ts', oldText: 'x', newText: 'y' },
          { type: 'content', content: { type: 'text', text: 'Edited a.ts' } },
        ],
        rawOutput: { content: 'Edited a.ts', is_error: false },
      },
      expect.objectContaining({
        toolCallId: 'c2',
        kind: 'execute',
        status: 'failed',
        content: [{ type: 'content', content: { type: 'text', text: '```\nexit 1\n```' } }],
      }),
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Fixed.' } },
    ]);
  });

  it('shows a call that never got a result as failed, and a compaction as its summary', () => {
    const updates = replayUpdates(
      [
        { role: 'compaction', summary: 'We fixed a.ts.', provider: 'openai', model: 'm', usage: emptyUsage(), prior_usage: emptyUsage() },
        assistant([{ type: 'tool_call', id: 'c9', name: 'bash', input: { command: 'sleep 100' } }]),
      ],
      '/w',
    );
    expect(updates[0]).toEqual({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: '*Earlier turns were compacted into this summary:*\n\nWe fixed a.ts.' },
    });
    expect(updates[1]).toMatchObject({ sessionUpdate: 'tool_call', toolCallId: 'c9', status: 'failed' });
    expect(updates[1]).not.toHaveProperty('rawOutput');
  });
});
