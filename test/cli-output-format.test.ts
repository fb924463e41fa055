/**
 * `panto -p --output-format json|stream-json` against the fake LLM server: what a script
 * reads from stdout parses as JSON, with the fields docs/cli.md promises.
 */
import type { SessionEntry } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { sessionDirFor } from '@panto/cli';
import { fakeServerSandbox, jsonlFiles, runPanto } from './cli-harness.js';

const e2e = fakeServerSandbox();

async function promptIds(): Promise<string[]> {
  const [file] = await jsonlFiles(sessionDirFor(e2e.box.cwd, { PANTO_HOME: e2e.box.home }));
  const entries: SessionEntry[] = decodeSession(await readFile(file!), file!).entries;
  return entries.flatMap((entry) => (entry.type === 'message' && entry.message.role === 'user' ? [entry.id] : []));
}

describe('panto -p --output-format', { timeout: 60_000 }, () => {
  it('json: one object with the answer, session_id, prompt_id (the prompt entry), stop_reason, usage and cost', async () => {
    e2e.server.enqueue({ text: 'The answer is 42.', usage: { input: 12, output: 5 } });
    const { args, env } = e2e.openai();
    const run = await runPanto([...args, '-p', 'what is it?', '--output-format', 'json'], { cwd: e2e.box.cwd, env });
    expect(run.code).toBe(0);
    const object = JSON.parse(run.stdout) as Record<string, unknown>;
    const [promptId] = await promptIds();
    expect(object).toMatchObject({
      type: 'result',
      answer: 'The answer is 42.',
      result: 'The answer is 42.',
      prompt_id: promptId,
      stop_reason: 'end_turn',
      is_error: false,
      incomplete: false,
      usage: { input_tokens: 12, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 },
      cost: { usd: 0, unpriced: ['openai/gpt-e2e'] },
      provider_calls: 1,
    });
    const [file] = await jsonlFiles(sessionDirFor(e2e.box.cwd, { PANTO_HOME: e2e.box.home }));
    expect(file).toContain(String(object.session_id));
    // The usage line still goes to stderr; stdout is only the object.
    expect(run.stderr).toContain('tokens: 12 in · 5 out');
  });

  it('json: a failed turn is an object with is_error and the error, and exit 1', async () => {
    e2e.server.enqueue({ status: 400, errorBody: { error: { message: 'bad request body', type: 'invalid_request_error' } } });
    const { args, env } = e2e.openai();
    const run = await runPanto([...args, '-p', 'fail', '--output-format', 'json'], { cwd: e2e.box.cwd, env });
    expect(run.code).toBe(1);
    const object = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(object).toMatchObject({ type: 'result', stop_reason: 'error', is_error: true, answer: '' });
    expect(String(object.error)).toContain('bad request body');
  });

  it('stream-json: one JSON object per line — start, deltas, the tool call and its result — ending with the result', async () => {
    e2e.server.enqueue(
      { text: 'Writing it.', toolCalls: [{ id: 'call_w', name: 'write', input: { path: 'a.txt', content: 'hello\n' } }] },
      { text: 'Done writing.' },
    );
    const { args, env } = e2e.openai();
    const run = await runPanto([...args, '--yolo', '-p', 'write a.txt', '--output-format', 'stream-json'], { cwd: e2e.box.cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    const lines = run.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
    const [promptId] = await promptIds();
    expect(events[0]).toEqual({ type: 'start', session_id: expect.any(String), prompt_id: promptId });
    expect(events.at(-1)).toMatchObject({ type: 'result', answer: 'Done writing.', prompt_id: promptId, provider_calls: 2, stop_reason: 'end_turn' });
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'message_start')).toHaveLength(2);
    expect(types.filter((type) => type === 'result')).toHaveLength(1);
    const text = events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('');
    expect(text).toBe('Writing it.Done writing.');
    expect(events.find((event) => event.type === 'tool_call')).toEqual({
      type: 'tool_call',
      id: 'call_w',
      name: 'write',
      input: { path: 'a.txt', content: 'hello\n' },
    });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ type: 'tool_result', id: 'call_w', name: 'write', is_error: false });
    expect(types.indexOf('tool_call')).toBeLessThan(types.indexOf('tool_result'));
    expect(events.find((event) => event.type === 'message_end')).toMatchObject({ stop_reason: 'tool_use', usage: { input_tokens: expect.any(Number) } });
    expect(await readFile(`${e2e.box.cwd}/a.txt`, 'utf8')).toBe('hello\n');
  });

  it('refuses --output-format without -p, and an unknown format, with a usage error', async () => {
    const without = await runPanto(['--output-format', 'json'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('--output-format goes with -p');
    const unknown = await runPanto(['-p', 'x', '--output-format', 'yaml'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--output-format: expected text, json, stream-json, got "yaml"');
  });
});
