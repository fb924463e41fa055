import type { Message } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { replayLines } from './replay.js';

const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
function answer(text: string, calls: { name: string; input: Record<string, string> }[] = []): Message {
  return {
    role: 'assistant',
    content: [
      ...(text === '' ? [] : [{ type: 'text' as const, text }]),
      ...calls.map((call, i) => ({ type: 'tool_call' as const, id: `c${i}`, name: call.name, input: call.input })),
    ],
    provider: 'openai',
    model: 'm',
    stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
    usage,
  };
}

describe('replayLines', () => {
  it('shows the last turns: the prompt, the tools called, the start of the answer', () => {
    const messages: Message[] = [
      { role: 'system', content: 'be brief', mode: 'replace' },
      { role: 'user', content: 'one' },
      answer('first answer'),
      { role: 'user', content: 'run the tests\nplease' },
      answer('', [{ name: 'bash', input: { command: 'npm test' } }]),
      { role: 'tool_result', tool_call_id: 'c0', tool_name: 'bash', content: 'ok', is_error: false },
      answer('They pass.\n\nline 2\nline 3\nline 4\nline 5'),
      { role: 'user', content: 'three' },
      answer('third'),
      { role: 'user', content: 'four' },
    ];
    expect(replayLines(messages)).toEqual([
      '── the last 3 of 4 turns ──',
      '› run the tests (+1 line)',
      '  · bash $ npm test',
      '  They pass.',
      '  line 2',
      '  line 3',
      '  line 4',
      '  … (1 more lines)',
      '› three',
      '  third',
      '› four',
      '  (no answer)',
      '──',
    ]);
  });

  it('shows nothing for a conversation without a prompt', () => {
    expect(replayLines([{ role: 'system', content: 'x', mode: 'replace' }])).toEqual([]);
  });
});
