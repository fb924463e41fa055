import type { StepResult, ToolCallBlock } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { createTurnReceiver, describeToolCall, formatUsage, toolLine } from './render-turn.js';
import { Terminal } from './terminal.js';
import { CapturedOutput } from '../../../../test/support/streams.js';

const call = (name: string, input: ToolCallBlock['input']): ToolCallBlock => ({
  type: 'tool_call',
  id: 'c1',
  name,
  input,
});
const usage = { input_tokens: 1234, output_tokens: 56, cache_read_tokens: 0, cache_write_tokens: 0 };
const stepEnd = (): { type: 'step-end'; result: StepResult } => ({
  type: 'step-end',
  result: { stopReason: 'end_turn', messages: [], usage, providerCalls: 1, incomplete: false },
});

function setup(tty: boolean) {
  const stdout = new CapturedOutput(tty);
  const stderr = new CapturedOutput(tty);
  const terminal = new Terminal(stdout, stderr, { NO_COLOR: '1' });
  return { stdout, stderr, terminal };
}

describe('turn receiver', () => {
  it('streams text to stdout and puts one line per tool call, with its result size, on stderr', () => {
    const { stdout, stderr, terminal } = setup(false);
    const receive = createTurnReceiver(terminal, 'stream');
    receive({ type: 'message-start', provider: 'openai', model: 'm' });
    receive({ type: 'text-delta', index: 0, delta: 'Reading ' });
    receive({ type: 'text-delta', index: 0, delta: 'it.' });
    const read = call('read', { path: 'src/a.ts', offset: 10, limit: 5 });
    receive({ type: 'tool-execution-start', toolCall: read });
    receive({
      type: 'tool-execution-end',
      toolCall: read,
      result: {
        role: 'tool_result',
        tool_call_id: 'c1',
        tool_name: 'read',
        content: 'x'.repeat(2048),
        is_error: false,
      },
    });
    receive(stepEnd());
    expect(stdout.text).toBe('Reading it.\n');
    expect(stderr.text).toBe('  ✓ read src/a.ts:10+5 · 2.0 KB\n');
  });

  it('renders a message a block at a time when the terminal has a markdown renderer, and the end at message-end', () => {
    const { stdout, terminal } = setup(false);
    terminal.renderMarkdown = (markdown) => `[${markdown.trim()}]\n\n`;
    const receive = createTurnReceiver(terminal, 'stream');
    receive({ type: 'message-start', provider: 'openai', model: 'm' });
    receive({ type: 'text-delta', index: 0, delta: '# Title\n\nSome ' });
    expect(stdout.text).toBe('[# Title]\n');
    receive({ type: 'text-delta', index: 0, delta: '**bold**' });
    receive({
      type: 'message-end',
      message: { role: 'assistant', content: [], provider: 'openai', model: 'm', stop_reason: 'end_turn', usage },
    });
    expect(stdout.text).toBe('[# Title]\n\n[Some **bold**]\n');
  });

  it('shows no spinner when stderr is not a terminal', () => {
    const { stderr, terminal } = setup(false);
    createTurnReceiver(terminal, 'stream')({ type: 'message-start', provider: 'openai', model: 'm' });
    expect(stderr.text).toBe('');
  });

  it('shows a spinner on a terminal while waiting for the first token and while a tool runs, cleared before output', () => {
    const { stdout, stderr, terminal } = setup(true);
    const receive = createTurnReceiver(terminal, 'stream');
    receive({ type: 'message-start', provider: 'openai', model: 'm' });
    expect(stderr.text).toContain('waiting for the model…');
    receive({ type: 'text-delta', index: 0, delta: 'Hi' });
    expect(stderr.text.endsWith('\r\x1b[2K')).toBe(true);
    expect(stdout.text).toBe('Hi');
    const bash = call('bash', { command: 'npm test' });
    receive({ type: 'tool-execution-start', toolCall: bash });
    expect(stdout.text).toBe('Hi\n');
    expect(stderr.text).toContain('bash $ npm test');
    receive(stepEnd());
    expect(stderr.text.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('in print mode, writes no text to stdout (the caller prints the final answer)', () => {
    const { stdout, terminal } = setup(false);
    const receive = createTurnReceiver(terminal, 'print');
    receive({ type: 'text-delta', index: 0, delta: 'intermediate' });
    receive(stepEnd());
    expect(stdout.text).toBe('');
  });
});

describe('tool and usage lines', () => {
  it('describes calls of each tool in a few words', () => {
    expect(describeToolCall(call('read', { path: 'a.ts' }))).toBe('read a.ts');
    expect(describeToolCall(call('write', { path: 'b.ts', content: 'x' }))).toBe('write b.ts');
    expect(describeToolCall(call('edit', { path: 'c.ts', old_text: 'a', new_text: 'b' }))).toBe('edit c.ts');
    expect(describeToolCall(call('bash', { command: 'ls\nrm -rf x' }))).toBe('bash $ ls …');
    expect(describeToolCall(call('clock', { tz: 'UTC' }))).toBe('clock {"tz":"UTC"}');
  });

  it('writes control characters of a call as escapes, so a carriage return cannot rewrite the line', () => {
    expect(describeToolCall(call('bash', { command: 'echo one\r\necho two' }))).toBe('bash $ echo one\\r …');
    expect(describeToolCall(call('read', { path: 'a\x1b[2Jb' }))).toBe('read a\\e[2Jb');
  });

  it('marks failed calls and shows the first line of the error', () => {
    const line = toolLine(call('edit', { path: 'a.ts' }), {
      role: 'tool_result',
      tool_call_id: 'c1',
      tool_name: 'edit',
      content: 'old_text was not found in a.ts (0 matches).\nmore',
      is_error: true,
    });
    expect(line).toBe('  ✗ edit a.ts · 48 B · old_text was not found in a.ts (0 matches).');
  });

  it('counts the images of a result', () => {
    const line = toolLine(call('mcp__everything__get-tiny-image', {}), {
      role: 'tool_result',
      tool_call_id: 'c1',
      tool_name: 'mcp__everything__get-tiny-image',
      content: 'A tiny image',
      is_error: false,
      images: [{ type: 'image', media_type: 'image/png', data: 'AAAA' }],
    });
    expect(line).toBe('  ✓ mcp__everything__get-tiny-image {} · 12 B + 1 image');
  });

  it('formats usage with thousands separators and cache figures only when present', () => {
    expect(formatUsage(usage)).toBe('tokens: 1,234 in · 56 out');
    expect(formatUsage({ ...usage, cache_read_tokens: 1000, cache_write_tokens: 5 })).toBe('tokens: 1,234 in · 56 out · 1,000 cache read · 5 cache write');
  });
});
