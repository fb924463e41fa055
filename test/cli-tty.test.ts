/**
 * The interactive CLI in a real pseudo-terminal: util-linux `script` allocates a pty, runs
 * the built CLI in it, and forwards what the test writes as keystrokes. Shows that a
 * dangling prompt is prefilled in the input line (and can be edited before sending) and
 * that Ctrl-C aborts a running turn and returns to the prompt.
 */
import { FSJSONLStore, type SessionEntry } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { FakeLLMServer } from '@panto/core/testing';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSystemPrompt, sessionDirFor } from '@panto/cli';
import { assertBuilt, sandbox, until, type Sandbox } from './cli-harness.js';
import { hasScript, startPtyPanto } from './pty-harness.js';

describe.skipIf(!hasScript)('panto in a terminal (pty via util-linux script)', { timeout: 90_000 }, () => {
  let server: FakeLLMServer;
  let box: Sandbox;

  beforeAll(async () => {
    assertBuilt();
    server = await FakeLLMServer.start();
    box = await sandbox();
  });
  afterAll(async () => {
    await server.close();
    await box.cleanup();
  });

  it('prefills the dangling prompt for editing, aborts a running turn on Ctrl-C, and leaves on Ctrl-C at an empty prompt', async () => {
    // A session whose last prompt was never answered (as after a crash).
    const sessionDir = sessionDirFor(box.cwd, { PANTO_HOME: box.home });
    const store = await FSJSONLStore.create(sessionDir, { cwd: box.cwd });
    const stamp = new Date().toISOString();
    await store.appendMessages([
      { type: 'message', id: 'e1', timestamp: stamp, message: { role: 'system', content: defaultSystemPrompt(box.cwd), mode: 'replace' } },
    ]);
    await store.appendMessages([
      { type: 'message', id: 'e2', timestamp: stamp, message: { role: 'user', content: 'fix the flaky test', provider: 'openai', model: 'gpt-tty' } },
    ]);
    server.enqueue({ text: 'Looking into the flaky test now', hang: true });

    const cli = startPtyPanto(['-c', '--provider', 'openai', '--model', 'gpt-tty', '--base-url', server.openaiBaseURL], {
      cwd: box.cwd,
      env: { ...box.env, OPENAI_API_KEY: 'sk-test' },
      columns: 200,
    });
    const { screen, type, exited } = cli;

    try {
      // 1. The dangling prompt is announced and sits in the input line.
      await until('the prefilled prompt', () => /> fix the flaky test/.test(screen()));
      expect(screen()).toContain('The last prompt of this session was never answered');

      // 2. It can be edited, then sent: an ordinary new prompt.
      type(' please\r');
      await until('the request to reach the fake server', () => server.requests.length === 1);
      const sent = server.requests[0]!.body as { messages: { role: string; content: string }[] };
      expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'fix the flaky test please' });
      expect(sent.messages.filter((message) => message.role === 'user')).toHaveLength(1);

      // 3. Ctrl-C aborts the running turn (the server is holding the stream) and returns to the prompt.
      await until('the first streamed words', () => screen().includes('Looking'));
      type('\x03');
      await until('the abort notice', () => screen().includes('aborted'));
      const afterAbort = () => screen().slice(screen().indexOf('aborted'));
      await until('a new prompt after the abort', () => afterAbort().includes('> '));
      // What the stopped turn ran up, not "0 in · 0 out": OpenAI reports usage only at the end of a stream.
      expect(afterAbort()).toMatch(/tokens: [1-9][\d,]* in · [1-9][\d,]* out/);

      // 4. Ctrl-C on a line with text clears it; Ctrl-C at an empty prompt leaves.
      type('half-typed');
      await until('the typed text', () => afterAbort().includes('half-typed'));
      type('\x03');
      await until('the cleared line', () => afterAbort().includes('^C'));
      type('\x03');
      expect(await exited).toBe(0);
    } finally {
      cli.kill();
    }

    expect(server.requests).toHaveLength(1);
    const entries: SessionEntry[] = decodeSession(await readFile(store.getSessionFile()), 'session').entries;
    const kinds = entries.map((entry) => (entry.type === 'message' ? `${entry.message.role}` : entry.type));
    expect(kinds).toEqual(['system', 'user', 'user', 'assistant']);
    expect(entries[2]).toMatchObject({ parent_id: 'e1', message: { content: 'fix the flaky test please' } });
    expect(entries[3]).toMatchObject({ message: { role: 'assistant', stop_reason: 'aborted' } });
    const stopped = entries[3]?.type === 'message' && entries[3].message.role === 'assistant' ? entries[3].message.usage : undefined;
    expect(stopped?.input_tokens).toBeGreaterThan(0);
    expect(stopped?.output_tokens).toBeGreaterThan(0);
  });
});
