import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { emptyUsage, type ToolCallBlock } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { TurnUpdates } from './turn-updates.js';

const write: ToolCallBlock = { type: 'tool_call', id: 'c1', name: 'write', input: { path: 'new.txt', content: 'hi' } };

/** The updates sent, once every pending one was worked out (in the order they were sent). */
function collector() {
  const sent: (SessionUpdate | Promise<SessionUpdate>)[] = [];
  return { send: (update: SessionUpdate | Promise<SessionUpdate>) => void sent.push(update), all: () => Promise.all(sent) };
}

describe("a turn's events as session updates", () => {
  it('announces a tool call when the model names it, details it when the model finished it, and ends it with its result', async () => {
    const out = collector();
    const updates = new TurnUpdates(out.send, '/nonexistent-cwd');
    updates.receiver({ type: 'tool-call-start', index: 0, id: 'c1', name: 'write' });
    updates.receiver({ type: 'tool-call-end', index: 0, toolCall: write });
    updates.receiver({ type: 'tool-execution-start', toolCall: write });
    out.send(updates.starting(write));
    updates.receiver({
      type: 'tool-execution-end',
      toolCall: write,
      result: { role: 'tool_result', tool_call_id: 'c1', tool_name: 'write', content: 'Wrote 1 line', is_error: false },
    });
    updates.receiver({
      type: 'message-end',
      message: { role: 'assistant', content: [], provider: 'p', model: 'm', usage: emptyUsage(), stop_reason: 'tool_use' },
    });
    const diff = { type: 'diff', path: '/nonexistent-cwd/new.txt', oldText: null, newText: 'hi' };
    expect(await out.all()).toEqual([
      { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'write', kind: 'edit', status: 'pending' },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        title: 'write new.txt',
        kind: 'edit',
        rawInput: { path: 'new.txt', content: 'hi' },
        locations: [{ path: '/nonexistent-cwd/new.txt' }],
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress', content: [diff] },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'completed',
        content: [diff, { type: 'content', content: { type: 'text', text: 'Wrote 1 line' } }],
        rawOutput: { content: 'Wrote 1 line', is_error: false },
      },
    ]);
  });

  it('announces a call whose start the provider never streamed, once, when it ends', async () => {
    const out = collector();
    const updates = new TurnUpdates(out.send, '/w');
    const bash: ToolCallBlock = { type: 'tool_call', id: 'c2', name: 'bash', input: { command: 'ls' } };
    updates.receiver({ type: 'tool-call-end', index: 0, toolCall: bash });
    updates.receiver({ type: 'tool-execution-start', toolCall: bash });
    const sent = await out.all();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ sessionUpdate: 'tool_call', toolCallId: 'c2', title: 'bash $ ls', kind: 'execute', status: 'pending' });
  });
});
