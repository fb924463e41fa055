/**
 * `panto -p --input-format stream-json --output-format stream-json` against the fake LLM
 * server: prompts fed on stdin one JSON object per line (Claude Code's shape), answered in
 * one process and one session, an interrupt, and lines that are not prompts.
 */
import type { SessionEntry } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { sessionDirFor } from '@panto/cli';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeServerSandbox, jsonlFiles, requestBody, runPanto, startPanto, until } from './cli-harness.js';

const e2e = fakeServerSandbox();
const FLAGS = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'];

type Line = { type: string; [key: string]: unknown };
const parse = (stdout: string): Line[] =>
  stdout
    .trimEnd()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
const prompt = (content: unknown) => `${JSON.stringify({ type: 'user', message: { role: 'user', content } })}\n`;

async function sessionEntries(): Promise<{ file: string; entries: SessionEntry[] }[]> {
  const files = await jsonlFiles(sessionDirFor(e2e.box.cwd, { PANTO_HOME: e2e.box.home }));
  return Promise.all(files.map(async (file) => ({ file, entries: decodeSession(await readFile(file), file).entries })));
}

describe('panto -p --input-format stream-json', { timeout: 90_000 }, () => {
  it('answers three prompts in one process and one session, each ending with its result line', async () => {
    e2e.server.enqueue({ text: 'One.', usage: { input: 5, output: 1 } }, { text: 'Two.' }, { text: 'Three.' });
    const { args, env } = e2e.openai();
    const stdin = prompt('first') + prompt([{ type: 'text', text: 'second' }]) + prompt('third');
    const result = await runPanto([...args, ...FLAGS], { cwd: e2e.box.cwd, env, stdin });
    expect(result.code, result.stderr).toBe(0);
    const lines = parse(result.stdout);
    const results = lines.filter((line) => line.type === 'result');
    expect(results.map((line) => line.answer)).toEqual(['One.', 'Two.', 'Three.']);
    expect(lines.filter((line) => line.type === 'start')).toHaveLength(3);
    // Each answer is a -p turn's lines: start, its events, its result.
    expect(lines.map((line) => line.type).join(' ')).toMatch(/^start message_start (text_delta )+message_end result start/);

    const [session, ...others] = await sessionEntries();
    expect(others).toEqual([]);
    const promptIds = session!.entries.flatMap((entry) => (entry.type === 'message' && entry.message.role === 'user' ? [entry.id] : []));
    expect(results.map((line) => line.prompt_id)).toEqual(promptIds);
    const id = basename(session!.file, '.jsonl');
    expect(results.map((line) => line.session_id)).toEqual([id, id, id]);
    expect(results[0]).toMatchObject({ stop_reason: 'end_turn', is_error: false, usage: { input_tokens: 5, output_tokens: 1 }, cost: { usd: 0 } });
    expect(requestBody(e2e.server.requests[2])).toContain('One.');
    expect(requestBody(e2e.server.requests[2])).toContain('second');
  });

  it('an interrupt stops the turn running when it is read, answers the control request, and the prompts after it still run', async () => {
    e2e.server.enqueue({ text: 'A long answer that goes on and on', pauseAfterDeltas: 2 }, { text: 'Next one.' });
    const { args, env } = e2e.openai();
    const cli = startPanto([...args, ...FLAGS], { cwd: e2e.box.cwd, env });
    cli.child.stdin.write(prompt('go on for a while'));
    await until('the answer to start', () => cli.stdout.includes('"text_delta"'));
    cli.child.stdin.write(`${JSON.stringify({ type: 'control_request', request_id: 'stop-1', request: { subtype: 'interrupt' } })}\n`);
    cli.child.stdin.end(prompt('and then?'));
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    const lines = parse(result.stdout);
    expect(lines).toContainEqual({ type: 'control_response', response: { subtype: 'success', request_id: 'stop-1' } });
    const results = lines.filter((line) => line.type === 'result');
    expect(results.map((line) => line.stop_reason)).toEqual(['aborted', 'end_turn']);
    expect(results[1]).toMatchObject({ answer: 'Next one.' });
    // What the interrupted turn committed stays.
    const [session] = await sessionEntries();
    const messages = session!.entries.flatMap((entry) => (entry.type === 'message' ? [entry.message] : []));
    expect(messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['go on for a while', 'and then?']);
  });

  it('a line that is not a prompt gets an error line and changes nothing; an unknown control request gets an error response', async () => {
    e2e.server.enqueue({ text: 'Only this one.' });
    const { args, env } = e2e.openai();
    const stdin = [
      'not json',
      '[1, 2]',
      JSON.stringify({ type: 'user' }),
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'image', source: {} }] } }),
      JSON.stringify({ type: 'user', message: { role: 'user', content: '   ' } }),
      JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: 'hi' } }),
      JSON.stringify({ type: 'control_request', request_id: 'r-1', request: { subtype: 'set_model', model: 'x' } }),
      '',
      prompt('the real one').trimEnd(),
    ].join('\n');
    const result = await runPanto([...args, ...FLAGS], { cwd: e2e.box.cwd, env, stdin });
    expect(result.code).toBe(1);
    const lines = parse(result.stdout);
    const errors = lines.filter((line) => line.type === 'error').map((line) => String(line.message));
    expect(errors).toEqual([
      expect.stringMatching(/^stdin line 1: not JSON: .*; it was ignored$/),
      'stdin line 2: expected a JSON object; it was ignored',
      'stdin line 3: a user line needs message: {"role":"user","content":…}; it was ignored',
      'stdin line 4: message.content[0]: panto takes text blocks ({"type":"text","text":"…"}), got a "image" block; it was ignored',
      'stdin line 5: the prompt is empty; it was ignored',
      'stdin line 6: unknown type "assistant" (expected "user" or "control_request"); it was ignored',
    ]);
    expect(lines).toContainEqual({
      type: 'control_response',
      response: { subtype: 'error', request_id: 'r-1', error: 'panto does not handle control requests of subtype "set_model"' },
    });
    expect(lines.filter((line) => line.type === 'result').map((line) => line.answer)).toEqual(['Only this one.']);
    const [session] = await sessionEntries();
    const prompts = session!.entries.flatMap((entry) => (entry.type === 'message' && entry.message.role === 'user' ? [entry.message.content] : []));
    expect(prompts).toEqual(['the real one']);
    expect(e2e.server.requests).toHaveLength(1);
  });

  it('refuses a prompt of its own, and a missing --output-format stream-json, with a usage error', async () => {
    const own = await runPanto(['-p', 'hi', '--input-format', 'stream-json', '--output-format', 'stream-json'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(own.code).toBe(2);
    expect(own.stderr).toContain('--input-format stream-json reads the prompts from stdin: give -p no prompt of its own');
    const text = await runPanto(['-p', '--input-format', 'stream-json'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('--input-format stream-json needs --output-format stream-json');
  });
});
