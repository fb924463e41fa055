import { Agent, FSJSONLStore, listSessions, ToolRegistry, type Message, type Tool } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { ScriptedProvider, waitUntil, type ScriptedReply } from '@panto/core/testing';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './run-cli.js';
import type { LineInput, LineRead } from '../ui/line-input.js';
import type { ProviderFactory, ProviderChoice } from '../agent/provider-choice.js';
import { sessionDirFor } from '../session/session-dir.js';
import { shortIds } from '../session/short-id.js';
import { defaultSystemPrompt } from '../agent/system-prompt.js';
import { CapturedOutput, pipedStdin } from '../../../../test/support/streams.js';
import { tempDir } from '../../../../test/support/temp-dir.js';

interface Harness {
  cwd: string;
  home: string;
  sessionDir: string;
  /** Providers built during the runs, with the settings they were built from. */
  built: { settings: ProviderChoice; provider: ScriptedProvider }[];
}

let h: Harness;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const dir = await tempDir();
  cleanup = dir.cleanup;
  const cwd = join(dir.path, 'project');
  const home = join(dir.path, 'panto-home');
  await mkdir(cwd);
  h = { cwd, home, sessionDir: sessionDirFor(cwd, { PANTO_HOME: home }), built: [] };
});
afterEach(async () => cleanup());

interface RunOptions {
  replies?: ScriptedReply[];
  stdin?: string[];
  env?: Record<string, string>;
  lineInput?: LineInput;
  interrupt?: (fire: () => void) => void;
  cwd?: string;
}

async function cli(argv: string[], options: RunOptions = {}) {
  const stdout = new CapturedOutput();
  const stderr = new CapturedOutput();
  const replies = [...(options.replies ?? [])];
  const factory: ProviderFactory = (settings) => {
    const provider = new ScriptedProvider(replies.splice(0), {
      name: settings.provider,
      model: settings.model ?? `${settings.provider}-default`,
    });
    h.built.push({ settings, provider });
    return provider;
  };
  let fire: () => void = () => {};
  const code = await run({
    argv,
    env: { PANTO_HOME: h.home, PANTO_PROVIDER: 'openai', ...options.env },
    cwd: options.cwd ?? h.cwd,
    stdin: pipedStdin(options.stdin ?? []),
    stdout,
    stderr,
    providerFactory: factory,
    onInterrupt: (handler) => {
      fire = handler;
      options.interrupt?.(handler);
      return () => {};
    },
    forceExit: () => {
      throw new Error('forceExit called');
    },
    ...(options.lineInput ? { lineInput: options.lineInput } : {}),
  });
  return { code, stdout: stdout.text, stderr: stderr.text, fire };
}

async function sessionFiles(dir = h.sessionDir): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

async function entriesOf(file: string) {
  return decodeSession(await readFile(file), file).entries;
}

/** Waits until the first provider has received a request (the turn is under way). */
function providerCalled(): Promise<void> {
  return waitUntil(() => (h.built[0]?.provider.requests.length ?? 0) > 0, {
    message: 'the first provider received a request',
    intervalMs: 5,
  });
}

function roles(messages: readonly Message[]): string[] {
  return messages.map((message) => message.role);
}

describe('panto -p', () => {
  it('prints only the final answer to stdout and writes the session', async () => {
    const result = await cli(['-p', 'list the files', '--yolo'], {
      replies: [
        { text: 'Looking.', toolCalls: [{ name: 'bash', input: { command: 'echo hi' } }] },
        { text: 'There are none.', usage: { input_tokens: 12, output_tokens: 4 } },
      ],
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('There are none.\n');
    expect(result.stderr).toContain('✓ bash $ echo hi · ');
    expect(result.stderr).toContain('tokens: 12 in · 4 out (2 calls)');
    const [file, ...others] = await sessionFiles();
    expect(others).toEqual([]);
    const entries = await entriesOf(file!);
    expect(entries.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type))).toEqual([
      'system',
      'user',
      'assistant',
      'tool_result',
      'assistant',
    ]);
    expect(entries[0]).toMatchObject({
      message: { role: 'system', content: defaultSystemPrompt(h.cwd), mode: 'replace' },
    });
    expect(entries[1]).toMatchObject({
      message: { role: 'user', content: 'list the files', provider: 'openai', model: 'openai-default' },
    });
  });

  it('reads the prompt from stdin when given "-"', async () => {
    const result = await cli(['-p', '-'], { stdin: ['first line', 'second line'], replies: [{ text: 'ok' }] });
    expect(result.code).toBe(0);
    expect(h.built[0]!.provider.requests[0]!.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'first line\nsecond line',
    });
  });

  it('fails with exit code 2 when the prompt from stdin is empty', async () => {
    const result = await cli(['-p', '-'], { stdin: [] });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the prompt read from stdin is empty');
  });

  it('exits 1 with the provider error in one line, no stack, keeping the prompt on disk', async () => {
    const result = await cli(['-p', 'hi'], { replies: [{ error: new Error('429 rate limited, after 2 retries') }] });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error: 429 rate limited, after 2 retries');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const [file] = await sessionFiles();
    expect((await entriesOf(file!)).at(-1)).toMatchObject({ message: { role: 'user', content: 'hi' } });
  });

  it('aborts the turn on Ctrl-C, exits 130 and keeps the prompt on disk', async () => {
    let fire: () => void = () => {};
    const running = cli(['-p', 'long task'], {
      replies: [{ text: 'partial answer', hang: true, hangAfterChunks: 2 }],
      interrupt: (handler) => {
        fire = handler;
      },
    });
    await providerCalled();
    fire();
    const result = await running;
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('aborted');
    const [file] = await sessionFiles();
    const entries = await entriesOf(file!);
    expect(entries.map((entry) => entry.type === 'message' && entry.message.role)).toEqual(['system', 'user', 'assistant']);
    expect(entries[1]).toMatchObject({ message: { role: 'user', content: 'long task' } });
    expect(entries[2]).toMatchObject({
      message: { stop_reason: 'aborted', content: [{ type: 'text', text: 'partial ' }] },
    });
  });

  it('writes nothing with --no-session', async () => {
    const result = await cli(['-p', 'hi', '--no-session'], { replies: [{ text: 'hello' }] });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello\n');
    await expect(readdir(h.home)).rejects.toThrow(/ENOENT/);
  });

  it('says once on stderr that the offline provider is in use', async () => {
    const result = await cli(['-p', 'hi'], { env: { PANTO_PROVIDER: '' }, replies: [{ text: 'canned' }] });
    expect(h.built[0]!.settings.provider).toBe('offline');
    expect(result.stderr.match(/offline provider/g)).toHaveLength(1);
  });

  it('uses --system text, and reads --system @file relative to the working folder', async () => {
    await cli(['-p', 'hi', '--system', 'Be terse.'], { replies: [{ text: 'ok' }] });
    await writeFile(join(h.cwd, 'prompt.md'), 'From a file.');
    await cli(['-p', 'hi', '--system', '@prompt.md'], { replies: [{ text: 'ok' }] });
    expect(h.built[0]!.provider.requests[0]!.messages[0]).toEqual({
      role: 'system',
      content: 'Be terse.',
      mode: 'replace',
    });
    expect(h.built[1]!.provider.requests[0]!.messages[0]).toEqual({
      role: 'system',
      content: 'From a file.',
      mode: 'replace',
    });
  });
});

describe('resuming', () => {
  it('-c continues the most recent session of the folder, with its model', async () => {
    await cli(['-p', 'first question', '--model', 'gpt-special'], { replies: [{ text: 'first answer' }] });
    const result = await cli(['-c', '-p', 'second question'], { replies: [{ text: 'second answer' }] });
    expect(result.code).toBe(0);
    expect(h.built[1]!.settings.model).toBe('gpt-special');
    expect(roles(h.built[1]!.provider.requests[0]!.messages)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(h.built[1]!.provider.requests[0]!.messages[1]).toMatchObject({ content: 'first question' });
    expect(await sessionFiles()).toHaveLength(1);
  });

  it('-c starts a new session, saying so, when the folder has none', async () => {
    const result = await cli(['-c', '-p', 'hi'], { replies: [{ text: 'ok' }] });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('no earlier session');
    expect(await sessionFiles()).toHaveLength(1);
  });

  it('adds no system message on resume when the prompt is unchanged, and one "replace" when it changed', async () => {
    await cli(['-p', 'one'], { replies: [{ text: 'a' }] });
    await cli(['-c', '-p', 'two'], { replies: [{ text: 'b' }] });
    await cli(['-c', '-p', 'three', '--system', 'New rules.'], { replies: [{ text: 'c' }] });
    const [file] = await sessionFiles();
    const systems = (await entriesOf(file!)).filter((entry) => entry.type === 'message' && entry.message.role === 'system');
    expect(systems.map((entry) => entry.type === 'message' && entry.message)).toEqual([
      { role: 'system', content: defaultSystemPrompt(h.cwd), mode: 'replace' },
      { role: 'system', content: 'New rules.', mode: 'replace' },
    ]);
  });

  it('-r takes an id prefix', async () => {
    await cli(['-p', 'remember 42'], { replies: [{ text: 'ok' }] });
    const [info] = await listSessions(h.sessionDir);
    const result = await cli(['-r', info!.id.slice(0, 13), '-p', 'what number?'], { replies: [{ text: '42' }] });
    expect(result.code).toBe(0);
    expect(h.built[1]!.provider.requests[0]!.messages[1]).toMatchObject({ content: 'remember 42' });
  });

  it("-r with a copy of a session from elsewhere imports it into this folder's sessions and leaves the file alone", async () => {
    await cli(['-p', 'remember 42'], { replies: [{ text: 'ok' }] });
    const [file] = await sessionFiles();
    const id = (await listSessions(h.sessionDir))[0]!.id;
    const copy = join(h.cwd, 'exports', 'copy.jsonl');
    await mkdir(join(h.cwd, 'exports'));
    await writeFile(copy, await readFile(file!));
    await rm(file!);
    const before = await readFile(copy);
    const result = await cli(['-r', 'exports/copy.jsonl', '-p', 'again'], { replies: [{ text: 'ok' }] });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`imported ${copy} as session ${id} of this folder`);
    expect(h.built[1]!.provider.requests[0]!.messages[1]).toMatchObject({ content: 'remember 42' });
    expect(await readFile(copy)).toEqual(before);
    expect((await entriesOf(join(h.sessionDir, `${id}.jsonl`))).at(-2)).toMatchObject({
      message: { role: 'user', content: 'again' },
    });
  });

  it('-r with an export of a session this folder has continues that session, not the export', async () => {
    await cli(['-p', 'remember 42'], { replies: [{ text: 'ok' }] });
    const [file] = await sessionFiles();
    const id = (await listSessions(h.sessionDir))[0]!.id;
    const exported = join(h.cwd, `${id}.jsonl`);
    await writeFile(exported, await readFile(file!));
    const result = await cli(['-r', `${id}.jsonl`, '-p', 'again'], { replies: [{ text: 'ok' }] });
    expect(result.stderr).toContain(`is an export of session ${id}: continuing the session itself`);
    expect(await entriesOf(exported)).toHaveLength(3);
    expect((await entriesOf(file!)).at(-2)).toMatchObject({ message: { content: 'again' } });
  });

  it('-r on a session paused on a tool call that waits for approval (on the service) denies it at once, says so, and goes on', async () => {
    await mkdir(h.sessionDir, { recursive: true });
    const store = await FSJSONLStore.create(h.sessionDir, { cwd: h.cwd });
    const ask: Tool = { name: 'pay', description: 'pays', input_schema: { type: 'object' }, approval: { reason: 'it pays' }, execute: async () => 'paid' };
    const paused = new Agent(
      { provider: new ScriptedProvider([{ toolCalls: [{ id: 'c1', name: 'pay', input: {} }] }]), tools: new ToolRegistry([ask]) },
      { store },
    );
    await paused.submitUserMessage('pay it');
    expect((await paused.runStep()).stopReason).toBe('awaiting_approval');
    const file = store.getSessionFile();
    const result = await cli(['-r', file, '-p', 'never mind'], { replies: [{ text: 'ok' }] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('panto: denied pay: the session was waiting for approval of it (the model is told)');
    const log = await entriesOf(file);
    const kinds = log.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type));
    expect(kinds.slice(0, 4)).toEqual(['user', 'assistant', 'approval', 'tool_result']);
    expect(kinds.slice(-2)).toEqual(['user', 'assistant']);
    expect(log[3]).toMatchObject({
      message: { content: 'Tool call denied: the session was resumed in the panto CLI, which cannot ask for this approval. It was not run.' },
    });
  });

  it('-r with the path of a session file in a session folder continues it in place', async () => {
    await cli(['-p', 'remember 42'], { replies: [{ text: 'ok' }] });
    const [file] = await sessionFiles();
    const result = await cli(['-r', file!, '-p', 'again'], { replies: [{ text: 'ok' }] });
    expect(result.stderr).not.toContain('export');
    expect((await entriesOf(file!)).at(-2)).toMatchObject({ message: { content: 'again' } });
    expect(await sessionFiles()).toEqual([file]);
  });

  it('fails with exit code 1 and a clear message for an unknown id, an ambiguous prefix or a corrupt file', async () => {
    const missing = await cli(['-r', 'does-not-exist', '-p', 'x']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("panto: session not found: does-not-exist: panto --list shows this folder's sessions");

    await cli(['-p', 'a'], { replies: [{ text: 'ok' }] });
    await cli(['-p', 'b'], { replies: [{ text: 'ok' }] });
    const ambiguous = await cli(['-r', '0', '-p', 'x']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('is ambiguous: it matches 2 sessions');

    await writeFile(join(h.cwd, 'bad.jsonl'), '{"type":"session","version":1,"id":"x","timestamp":"t"}\nnot json\n');
    const corrupt = await cli(['-r', 'bad.jsonl', '-p', 'x']);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toContain('bad.jsonl:2: not valid JSON');
    expect(corrupt.stderr).not.toMatch(/\n\s+at /);
  });

  it('with --no-session, loads the session and writes nothing back', async () => {
    await cli(['-p', 'remember 42'], { replies: [{ text: 'ok' }] });
    const [file] = await sessionFiles();
    const before = await readFile(file!);
    const result = await cli(['-c', '--no-session', '-p', 'number?'], { replies: [{ text: '42' }] });
    expect(result.code).toBe(0);
    expect(h.built[1]!.provider.requests[0]!.messages[1]).toMatchObject({ content: 'remember 42' });
    expect(await readFile(file!)).toEqual(before);
  });
});

describe('--list', () => {
  it("lists the folder's sessions, newest first, with id, count and first prompt", async () => {
    await cli(['-p', 'the first session'], { replies: [{ text: 'ok' }] });
    await cli(['-p', 'the second session'], { replies: [{ text: 'ok' }] });
    const sessions = await listSessions(h.sessionDir);
    const result = await cli(['--list']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+MODIFIED\s+MSGS\s+FIRST PROMPT$/);
    const short = shortIds(sessions.map((session) => session.id));
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(sessions.map((session) => short.get(session.id)));
    expect(lines[1]).toMatch(/\s3\s+the (first|second) session$/);
  });

  it('says on stderr that there are none, and exits 0', async () => {
    const result = await cli(['--list']);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toContain('no sessions for');
  });
});

describe('usage errors', () => {
  it.each([[['--bogus']], [['--provider', 'gemini']], [['-c', '-r', 'x']], [['--system', '@missing.md', '-p', 'x']], [['stray']]])(
    '%j exits 2 with a usage line',
    async (argv) => {
      const result = await cli(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^panto: .+\nusage: panto /);
      expect(result.stdout).toBe('');
    },
  );

  it('rejects an unknown PANTO_PROVIDER with exit code 2', async () => {
    const result = await cli(['-p', 'x'], { env: { PANTO_PROVIDER: 'nope' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('PANTO_PROVIDER: unknown provider "nope"');
  });

  it('prints help and the version to stdout', async () => {
    expect(await cli(['--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('-r, --resume [session]') });
    expect(await cli(['--version'])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^panto \d+\.\d+\.\d+\n$/),
    });
  });
});

describe('provider choice', () => {
  it('prefers --provider/--model, then PANTO_PROVIDER/PANTO_MODEL', async () => {
    await cli(['-p', 'x', '--no-session'], {
      env: { PANTO_PROVIDER: 'anthropic', PANTO_MODEL: 'claude-x' },
      replies: [{ text: 'ok' }],
    });
    await cli(['-p', 'x', '--no-session', '--provider', 'openai', '--model', 'gpt-y', '--base-url', 'http://127.0.0.1:1/v1'], {
      env: { PANTO_PROVIDER: 'anthropic', PANTO_MODEL: 'claude-x' },
      replies: [{ text: 'ok' }],
    });
    expect(h.built.map((built) => built.settings)).toEqual([
      { provider: 'anthropic', model: 'claude-x' },
      { provider: 'openai', model: 'gpt-y', baseURL: 'http://127.0.0.1:1/v1' },
    ]);
  });

  it('falls back to the key-based default when PANTO_PROVIDER is unset', async () => {
    await cli(['-p', 'x', '--no-session'], {
      env: { PANTO_PROVIDER: '', OPENAI_API_KEY: 'sk-test' },
      replies: [{ text: 'ok' }],
    });
    expect(h.built[0]!.settings.provider).toBe('openai');
  });
});

/** Lines fed to the REPL as if typed at a terminal, recording what was prefilled. */
class TypedLines implements LineInput {
  readonly interactive = true;
  readonly prefills: (string | undefined)[] = [];
  readonly #lines: (string | LineRead)[];
  constructor(lines: (string | LineRead)[]) {
    this.#lines = [...lines];
  }
  async read(_prompt: string, prefill?: string): Promise<LineRead> {
    this.prefills.push(prefill);
    const next = this.#lines.shift();
    if (next === undefined) return { type: 'end' };
    return typeof next === 'string' ? { type: 'line', text: next } : next;
  }
  close(): void {
    this.#lines.length = 0;
  }
}

describe('interactive mode', () => {
  it('runs piped lines in order — prompts with tool calls, /compact, /session — and exits at the end of input', async () => {
    const result = await cli(['--yolo'], {
      stdin: ['write the file', '/compact keep the file name', '/session', 'and now?'],
      replies: [
        { toolCalls: [{ name: 'write', input: { path: 'out.txt', content: 'data\n' } }] },
        { text: 'Written.' },
        { text: 'We wrote out.txt.' },
        { text: 'Done.' },
      ],
    });
    expect(result.code).toBe(0);
    expect(await readFile(join(h.cwd, 'out.txt'), 'utf8')).toBe('data\n');
    expect(result.stdout).toContain('Written.\n');
    expect(result.stdout).toContain('compacted 5 messages');
    expect(result.stdout).toContain('messages  2 (1 system, 1 compaction)');
    expect(result.stdout).toContain('Done.\n');
    expect(result.stderr).toContain('✓ write out.txt · ');
    const provider = h.built[0]!.provider;
    expect(provider.requests[2]!.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('Additional instructions: keep the file name'),
    });
    expect(roles(provider.requests[3]!.messages)).toEqual(['system', 'compaction', 'user']);
    const [file] = await sessionFiles();
    expect((await entriesOf(file!)).map((entry) => entry.type)).toContain('compaction');
  });

  it('exits 1 at the end of piped input when a turn failed', async () => {
    const result = await cli([], { stdin: ['hi'], replies: [{ error: new Error('boom') }] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: boom');
  });

  it('leaves no session file when no prompt was sent', async () => {
    const result = await cli([], { stdin: ['/session', '/quit'] });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('file      (none: it is created with the first prompt)');
    expect(await sessionFiles()).toEqual([]);
  });

  it('on a terminal, prefills a dangling prompt once; sending it is a new user entry', async () => {
    await cli(['-p', 'unanswered'], { replies: [{ error: new Error('crash') }] });
    const typed = new TypedLines(['unanswered (edited)']);
    const result = await cli(['-c'], { lineInput: typed, replies: [{ text: 'answered' }] });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('never answered');
    expect(typed.prefills).toEqual(['unanswered', undefined]);
    const [file] = await sessionFiles();
    const users = (await entriesOf(file!)).filter((entry) => entry.type === 'message' && entry.message.role === 'user');
    expect(users).toHaveLength(2);
    // The resend is a sibling of the dangling prompt: both hang off the system prompt.
    expect(users[1]!.parent_id).toBe(users[0]!.parent_id);
  });

  it('with piped input, tells about a dangling prompt without resending it', async () => {
    await cli(['-p', 'lost prompt'], { replies: [{ error: new Error('crash') }] });
    const result = await cli(['-c'], { stdin: [] });
    expect(result.stderr).toContain('never answered (it is not resent): lost prompt');
    expect(h.built[1]!.provider.requests).toHaveLength(0);
  });

  it('aborts a running turn on Ctrl-C and returns to the prompt', async () => {
    let fire: () => void = () => {};
    const typed = new TypedLines(['slow one', 'next one']);
    const running = cli([], {
      lineInput: typed,
      replies: [{ text: 'never finished', hang: true, hangAfterChunks: 1 }, { text: 'second answer' }],
      interrupt: (handler) => {
        fire = handler;
      },
    });
    await providerCalled();
    fire();
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('⏹ aborted');
    expect(result.stdout).toContain('second answer');
    const [file] = await sessionFiles();
    const entries = await entriesOf(file!);
    expect(entries.map((entry) => entry.type === 'message' && entry.message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    expect(entries[2]).toMatchObject({
      message: { stop_reason: 'aborted', content: [{ type: 'text', text: 'neve' }] },
    });
  });

  it('ends on Ctrl-C while idle', async () => {
    const input = pipedStdin([], { keepOpen: true });
    const stdout = new CapturedOutput();
    const stderr = new CapturedOutput();
    let fired: (() => void) | undefined;
    const running = run({
      argv: ['--no-session'],
      env: { PANTO_HOME: h.home, PANTO_PROVIDER: 'offline' },
      cwd: h.cwd,
      stdin: input,
      stdout,
      stderr,
      onInterrupt: (handler) => {
        fired = handler;
        return () => {};
      },
      forceExit: () => {
        throw new Error('forceExit called');
      },
    });
    await waitUntil(() => fired !== undefined, { message: 'the CLI installed its interrupt handler', intervalMs: 5 });
    // The banner is written right before the REPL starts reading: a Ctrl-C before it (while
    // extensions load) exits at once, which is not what this test is about.
    await waitUntil(() => stderr.text.includes('/help for commands'), { message: 'the REPL to start', intervalMs: 5 });
    fired!();
    expect(await running).toBe(0);
  });
});
