/**
 * The built `panto` CLI against a fake LLM server on loopback, both wire protocols:
 * one-shot runs, continuing and resuming, listing, a piped interactive session with a tool
 * call and /compact, a run killed mid-turn, --no-session, and failures.
 */
import { listSessions, type SessionEntry } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { sessionDirFor } from '@panto/cli';
import { fakeServerSandbox, jsonlFiles, requestBody, runPanto, startPanto, until } from './cli-harness.js';

let sessionDir: string;

const e2e = fakeServerSandbox();
beforeEach(() => {
  sessionDir = sessionDirFor(e2e.box.cwd, { PANTO_HOME: e2e.box.home });
});

/** Anthropic via ANTHROPIC_BASE_URL, OpenAI (`e2e.openai()`) via --base-url: both ways of pointing the SDK are covered. */
function anthropic(): { args: string[]; env: Record<string, string> } {
  return {
    args: ['--provider', 'anthropic', '--model', 'claude-e2e'],
    env: { ...e2e.box.env, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: e2e.server.anthropicBaseURL },
  };
}

async function entries(file: string): Promise<SessionEntry[]> {
  return decodeSession(await readFile(file), file).entries;
}

function kinds(list: readonly SessionEntry[]): string[] {
  return list.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type));
}

describe('panto -p (one shot)', { timeout: 60_000 }, () => {
  it('openai: prints the answer, sends the coding tools, and writes a session file', async () => {
    e2e.server.enqueue({ text: 'Hello from the fake model.', usage: { input: 30, output: 6 } });
    const { args, env } = e2e.openai();
    const result = await runPanto([...args, '-p', 'say hello'], { cwd: e2e.box.cwd, env });
    expect(result.stderr).not.toContain('    at ');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hello from the fake model.\n');
    expect(result.stderr).toContain('tokens: 30 in · 6 out');

    const request = e2e.server.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    const sent = request.body as {
      model: string;
      messages: { role: string; content: string }[];
      tools: { function: { name: string; parameters: { properties: object; required: string[] } } }[];
    };
    expect(sent.model).toBe('gpt-e2e');
    expect(sent.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining(`Working folder: ${e2e.box.cwd}`) });
    expect(sent.messages[1]).toMatchObject({ role: 'user', content: 'say hello' });
    const tools = Object.fromEntries(sent.tools.map((tool) => [tool.function.name, tool.function.parameters]));
    expect(Object.keys(tools)).toEqual(['read', 'write', 'edit', 'bash']);
    expect(Object.keys(tools.read!.properties)).toEqual(['path', 'offset', 'limit']);
    expect(Object.keys(tools.write!.properties)).toEqual(['path', 'content']);
    expect(Object.keys(tools.edit!.properties)).toEqual(['path', 'old_text', 'new_text']);
    expect(Object.keys(tools.bash!.properties)).toEqual(['command', 'timeout_ms', 'needs']);

    const [file, ...more] = await jsonlFiles(sessionDir);
    expect(more).toEqual([]);
    expect(kinds(await entries(file!))).toEqual(['system', 'user', 'assistant']);
    expect((await entries(file!))[2]).toMatchObject({
      message: { provider: 'openai', model: 'gpt-e2e', content: [{ type: 'text', text: 'Hello from the fake model.' }] },
    });
  });

  it('anthropic: reads the prompt from stdin with "-p -"', async () => {
    e2e.server.enqueue({ text: 'Piped answer.' });
    const { args, env } = anthropic();
    const result = await runPanto([...args, '-p', '-'], { cwd: e2e.box.cwd, env, stdin: 'a prompt\nover two lines\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Piped answer.\n');
    expect(e2e.server.requests[0]!.path).toBe('/v1/messages');
    expect(e2e.server.requests[0]!.body).toMatchObject({ model: 'claude-e2e', messages: [{ role: 'user' }] });
    expect(requestBody(e2e.server.requests[0])).toContain('a prompt\\nover two lines');
  });

  it('reads the prompt from stdin with a bare -p before other flags, as claude -p does', async () => {
    e2e.server.enqueue({ text: 'Piped again.' });
    const { args, env } = anthropic();
    const result = await runPanto(['-p', ...args], { cwd: e2e.box.cwd, env, stdin: 'explain this diff\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Piped again.\n');
    expect(requestBody(e2e.server.requests[0])).toContain('explain this diff');
  });

  it('--no-session writes nothing', async () => {
    e2e.server.enqueue({ text: 'ephemeral' });
    const { args, env } = e2e.openai();
    const result = await runPanto([...args, '--no-session', '-p', 'hi'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('ephemeral\n');
    await expect(readdir(e2e.box.home)).rejects.toThrow(/ENOENT/);
  });

  it('exits 1 with the provider error in one line (no stack trace) and keeps the prompt', async () => {
    e2e.server.enqueue({ status: 400, errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } } });
    const { args, env } = anthropic();
    const result = await runPanto([...args, '-p', 'too long'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('prompt is too long');
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    const [file] = await jsonlFiles(sessionDir);
    expect(kinds(await entries(file!))).toEqual(['system', 'user']);
  });

  it('exits 2 with a usage line for an unknown flag, and prints the version', async () => {
    const bad = await runPanto(['--frobnicate'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^panto: unknown option '--frobnicate'\nusage: panto /);
    const version = await runPanto(['--version'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^panto \d+\.\d+\.\d+\n$/) });
  });

  it('uses the offline provider without keys, and says so once', async () => {
    const result = await runPanto(['-p', 'hello offline'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('hello offline');
    expect(result.stderr.match(/offline provider/g)).toHaveLength(1);
    expect(e2e.server.requests).toHaveLength(0);
  });
});

describe('continuing, resuming and listing', { timeout: 60_000 }, () => {
  it('anthropic: -c continues the last session; the second request carries the first turn', async () => {
    e2e.server.enqueue({ text: 'The number is 42.' }, { text: 'You asked about 42.' });
    const { args, env } = anthropic();
    expect((await runPanto([...args, '-p', 'remember the number 42'], { cwd: e2e.box.cwd, env })).code).toBe(0);
    const second = await runPanto([...args, '-c', '-p', 'what did I ask?'], { cwd: e2e.box.cwd, env });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('You asked about 42.\n');
    const sent = e2e.server.requests[1]!.body as { system: unknown; messages: { role: string }[] };
    expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(requestBody(e2e.server.requests[1])).toContain('remember the number 42');
    expect(requestBody(e2e.server.requests[1])).toContain('The number is 42.');
    const [file, ...more] = await jsonlFiles(sessionDir);
    expect(more).toEqual([]);
    expect(kinds(await entries(file!))).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  });

  it('openai: -r resumes by unique id prefix', async () => {
    e2e.server.enqueue({ text: 'first' }, { text: 'second' }, { text: 'resumed' });
    const { args, env } = e2e.openai();
    await runPanto([...args, '-p', 'session A'], { cwd: e2e.box.cwd, env });
    await runPanto([...args, '-p', 'session B'], { cwd: e2e.box.cwd, env });
    const sessions = await listSessions(sessionDir);
    const a = sessions.find((session) => session.firstPrompt === 'session A')!;
    const b = sessions.find((session) => session.firstPrompt === 'session B')!;
    // The shortest prefix that tells A from B.
    let length = 1;
    while (b.id.startsWith(a.id.slice(0, length))) length++;
    const result = await runPanto([...args, '-r', a.id.slice(0, length), '-p', 'go on'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    expect(requestBody(e2e.server.requests[2])).toContain('session A');
    expect(requestBody(e2e.server.requests[2])).not.toContain('session B');
    expect(kinds(await entries(a.file))).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  });

  it('anthropic: -r takes the path of an export outside the session folder, and continues the session itself', async () => {
    e2e.server.enqueue({ text: 'noted' }, { text: 'from the copy' });
    const { args, env } = anthropic();
    await runPanto([...args, '-p', 'the secret is swordfish'], { cwd: e2e.box.cwd, env });
    const [original] = await jsonlFiles(sessionDir);
    const elsewhere = join(e2e.box.root, 'downloads', 'from-s3.jsonl');
    await mkdir(join(e2e.box.root, 'downloads'));
    await cp(original!, elsewhere);

    const result = await runPanto([...args, '-r', elsewhere, '-p', 'what is the secret?'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('from the copy\n');
    expect(requestBody(e2e.server.requests[1])).toContain('the secret is swordfish');
    expect(result.stderr).toContain(`${elsewhere} is an export of session`);
    expect(kinds(await entries(elsewhere))).toEqual(['system', 'user', 'assistant']);
    expect(kinds(await entries(original!))).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  });

  it.each([5_000, 100_000])(
    'anthropic: a tool call whose arguments nest %i levels gets an error result the model sees, and the session file reads back',
    async (levels) => {
      const deep = `{"x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
      e2e.server.enqueue({ toolCalls: [{ name: 'read', input: {}, arguments: deep }] }, { text: 'I will nest less.' });
      const { args, env } = anthropic();
      const result = await runPanto([...args, '-p', 'read it'], { cwd: e2e.box.cwd, env });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('I will nest less.\n');
      expect(requestBody(e2e.server.requests[1])).toContain('nested deeper than 128 levels');
      const [file] = await jsonlFiles(sessionDir);
      const stored = await entries(file!);
      expect(kinds(stored)).toEqual(['system', 'user', 'assistant', 'tool_result', 'assistant']);
      expect(stored[2]).toMatchObject({ message: { content: [{ type: 'tool_call', name: 'read', input: {} }] } });
    },
  );

  it('anthropic: -c continues a session file that holds a line nested 5,000 levels deep (written before the limit)', async () => {
    e2e.server.enqueue({ text: 'first' }, { text: 'continued' });
    const { args, env } = anthropic();
    await runPanto([...args, '-p', 'start'], { cwd: e2e.box.cwd, env });
    const [file] = await jsonlFiles(sessionDir);
    const last = (await entries(file!)).at(-1)!;
    const usage = '{"input_tokens":1,"output_tokens":1,"cache_read_tokens":0,"cache_write_tokens":0}';
    const deep = `{"x":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const [call, result] = ['019ae000-0000-7000-8000-000000000001', '019ae000-0000-7000-8000-000000000002'];
    await writeFile(
      file!,
      `${await readFile(file!, 'utf8')}{"type":"message","id":"${call}","parent_id":"${last.id}","timestamp":"2026-12-01T10:00:00.000Z","batch_size":2,"message":{"role":"assistant","content":[{"type":"tool_call","id":"toolu_old","name":"read","input":${deep}}],"provider":"anthropic","model":"claude-e2e","usage":${usage},"stop_reason":"tool_use"}}\n{"type":"message","id":"${result}","parent_id":"${call}","timestamp":"2026-12-01T10:00:00.000Z","message":{"role":"tool_result","tool_call_id":"toolu_old","tool_name":"read","content":"old","is_error":false}}\n`,
    );
    const continued = await runPanto([...args, '-c', '-p', 'go on'], { cwd: e2e.box.cwd, env });
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stdout).toBe('continued\n');
    expect(requestBody(e2e.server.requests[1])).toContain('"id":"toolu_old","name":"read","input":{}');
  });

  it('-r fails with exit 1 and a clear message for an unknown id', async () => {
    const result = await runPanto(['-r', 'ffffffff', '-p', 'x'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('panto: session not found: ffffffff');
  });

  it("--list shows the folder's sessions with id, time, message count and first prompt", async () => {
    e2e.server.enqueue({ text: 'one' }, { text: 'two' });
    const { args, env } = e2e.openai();
    await runPanto([...args, '-p', 'first session prompt'], { cwd: e2e.box.cwd, env });
    await runPanto([...args, '-p', 'second session prompt'], { cwd: e2e.box.cwd, env });
    const result = await runPanto(['--list'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ID\s+MODIFIED\s+MSGS\s+FIRST PROMPT$/);
    for (const line of lines.slice(1)) {
      expect(line).toMatch(/^[0-9a-f]{8}\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+3\s+(first|second) session prompt$/);
    }
    const other = await runPanto(['--list'], { cwd: e2e.box.root, env: e2e.box.env });
    expect(other.stdout).toBe('');
    expect(other.stderr).toContain('no sessions for');
  });
});

describe('interactive, with piped stdin', { timeout: 60_000 }, () => {
  it('openai: runs a tool call, /compact and /export, then exits at the end of input', async () => {
    await writeFile(join(e2e.box.cwd, 'notes.txt'), 'alpha\nbeta\n');
    e2e.server.enqueue(
      { text: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'read', input: { path: 'notes.txt' } }] },
      { text: 'It has two lines.', usage: { input: 100, output: 10 } },
      { text: 'Summary: notes.txt has alpha and beta.' },
      { text: 'Still two lines.' },
    );
    const { args, env } = e2e.openai();
    const input = ['what is in notes.txt?', '/compact mention the file', 'and now?', '/session', '/export out/session.jsonl', ''].join('\n');
    const result = await runPanto(args, { cwd: e2e.box.cwd, env, stdin: input });
    expect(result.stderr).not.toContain('    at ');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Let me look.\n');
    expect(result.stdout).toContain('It has two lines.\n');
    expect(result.stdout).toContain('compacted 5 messages');
    expect(result.stdout).toContain('Still two lines.\n');
    expect(result.stderr).toMatch(/✓ read notes\.txt · \d+ B/);
    expect(result.stderr).toContain('tokens: 100 in · 10 out');

    // The tool result went back to the model.
    expect(requestBody(e2e.server.requests[1])).toContain('1\\talpha\\n2\\tbeta');
    // The compaction request asked for a summary with the user's instructions.
    expect(requestBody(e2e.server.requests[2])).toContain('Additional instructions: mention the file');
    // After compaction, the model sees the summary instead of the earlier turns.
    expect(requestBody(e2e.server.requests[3])).toContain('Summary: notes.txt has alpha and beta.');
    expect(requestBody(e2e.server.requests[3])).toContain('and now?');
    expect(requestBody(e2e.server.requests[3])).not.toContain('Let me look.');

    const [file] = await jsonlFiles(sessionDir);
    const log = await entries(file!);
    expect(kinds(log)).toEqual(['system', 'user', 'assistant', 'tool_result', 'assistant', 'compaction', 'user', 'assistant']);
    expect(result.stdout).toContain(`file      ${file}`);
    expect(result.stdout).toContain('messages  4 (1 system, 1 compaction, 1 user, 1 assistant)');
    expect(await readFile(join(e2e.box.cwd, 'out/session.jsonl'))).toEqual(await readFile(file!));
  });

  it('a turn killed with SIGKILL after the prompt was sent leaves a dangling prompt that -c offers back', async () => {
    e2e.server.enqueue({ text: 'this answer never completes', hang: true });
    const { args, env } = anthropic();
    const running = startPanto([...args, '-p', 'the prompt that was cut off'], { cwd: e2e.box.cwd, env });
    await until('the request to reach the fake server', () => e2e.server.requests.length === 1);
    running.child.kill('SIGKILL');
    expect((await running.done).signal).toBe('SIGKILL');

    const [file] = await jsonlFiles(sessionDir);
    expect(kinds(await entries(file!))).toEqual(['system', 'user']);

    const resumed = await runPanto([...args, '-c'], { cwd: e2e.box.cwd, env, stdin: '' });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('The last prompt of this session was never answered (it is not resent): the prompt that was cut off');
    expect(e2e.server.requests).toHaveLength(1);

    // Sending it again is an ordinary new prompt: a sibling of the dangling one.
    e2e.server.enqueue({ text: 'answered at last' });
    const again = await runPanto([...args, '-c'], { cwd: e2e.box.cwd, env, stdin: 'the prompt that was cut off\n' });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('answered at last');
    const log = await entries(file!);
    expect(kinds(log)).toEqual(['system', 'user', 'user', 'assistant']);
    expect(log[2]!.parent_id).toBe(log[0]!.id);
    expect(log[1]!.parent_id).toBe(log[0]!.id);
  });
});

describe('short ids (issue 15)', { timeout: 60_000 }, () => {
  it('--list shows a short id that -r resolves, and --list --all lists every folder', async () => {
    const { args, env } = e2e.openai();
    e2e.server.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'resumed' });
    await runPanto([...args, '-p', 'first session prompt'], { cwd: e2e.box.cwd, env });
    await runPanto([...args, '-p', 'second session prompt'], { cwd: e2e.box.cwd, env });
    const elsewhere = join(e2e.box.root, 'other-project');
    await mkdir(elsewhere);
    await runPanto([...args, '-p', 'a prompt elsewhere'], { cwd: elsewhere, env });

    const listed = await runPanto(['--list'], { cwd: e2e.box.cwd, env: e2e.box.env });
    const rows = listed.stdout.trimEnd().split('\n').slice(1);
    expect(rows).toHaveLength(2);
    const firstRow = rows.find((row) => row.endsWith('first session prompt'))!;
    const short = firstRow.split(/\s+/)[0]!;
    expect(short).toMatch(/^[0-9a-f]{8}$/);
    const [file] = (await jsonlFiles(sessionDir)).filter((path) => path.includes(short));
    expect(file).toBeDefined();

    // Both sessions were started within the same minute: -r <short id> still names one.
    const resumed = await runPanto([...args, '-r', short, '-p', 'and now?'], { cwd: e2e.box.cwd, env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('resumed\n');
    expect(requestBody(e2e.server.requests.at(-1))).toContain('first session prompt');
    expect(kinds(await entries(file!))).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);

    const all = await runPanto(['--list', '--all'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(all.code).toBe(0);
    const allLines = all.stdout.trimEnd().split('\n');
    expect(allLines[0]).toMatch(/^ID\s+MODIFIED\s+MSGS\s+FOLDER\s+FIRST PROMPT$/);
    expect(allLines).toHaveLength(4);
    expect(all.stdout).toMatch(new RegExp(`${elsewhere.replaceAll('/', '\\/')}\\s+a prompt elsewhere`));
    expect(all.stdout).toMatch(new RegExp(`${e2e.box.cwd.replaceAll('/', '\\/')}\\s+second session prompt`));
  });
});

describe('short ids of other folders (issue 15)', { timeout: 60_000 }, () => {
  it("-r with the short id of another folder's session (as --list --all shows it) says where it is, in one line", async () => {
    const { args, env } = e2e.openai();
    e2e.server.enqueue({ text: 'one' });
    const elsewhere = join(e2e.box.root, 'other-project');
    await mkdir(elsewhere);
    await runPanto([...args, '-p', 'a prompt elsewhere'], { cwd: elsewhere, env });
    const all = await runPanto(['--list', '--all'], { cwd: e2e.box.cwd, env: e2e.box.env });
    const short = all.stdout.trimEnd().split('\n')[1]!.split(/\s+/)[0]!;

    const result = await runPanto([...args, '-r', short, '-p', 'and now?'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`${short} is a session of ${elsewhere}; resume it there: cd ${elsewhere} && panto -r `);
    expect(e2e.server.requests).toHaveLength(1);
  });
});

describe('approvals with -p (issue 15)', { timeout: 60_000 }, () => {
  it('without a sandbox, refuses bash without --yolo, with a tool error that says how to allow it, and runs it with --yolo', async () => {
    const { args: openai, env } = e2e.openai();
    const args = [...openai, '--sandbox', 'off'];
    const touch = { id: 'call_1', name: 'bash', input: { command: 'touch made-by-bash' } };
    e2e.server.enqueue({ text: 'Running it.', toolCalls: [touch] }, { text: 'It was refused.' });
    const refused = await runPanto([...args, '-p', 'make the file'], { cwd: e2e.box.cwd, env });
    expect(refused.code).toBe(0);
    expect(refused.stderr).toMatch(/✗ bash \$ touch made-by-bash · .* Tool call refused: bash needs the user's approval, and panto -p cannot ask/);
    expect(requestBody(e2e.server.requests[1])).toContain('run panto again with --yolo');
    await expect(readdir(e2e.box.cwd)).resolves.not.toContain('made-by-bash');

    e2e.server.enqueue({ text: 'Running it.', toolCalls: [touch] }, { text: 'Done.' });
    const allowed = await runPanto([...args, '--yolo', '-p', 'make the file'], { cwd: e2e.box.cwd, env });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toBe('Done.\n');
    expect(allowed.stderr).toContain('✓ bash $ touch made-by-bash');
    await expect(readdir(e2e.box.cwd)).resolves.toContain('made-by-bash');
  });
});

describe('--fork, /tree and /fork without a terminal (issue 11)', { timeout: 60_000 }, () => {
  it('-c --fork continues in a new session holding the old path; the old one is unchanged', async () => {
    const { args, env } = e2e.openai();
    e2e.server.enqueue({ text: 'first' }, { text: 'in the fork' });
    await runPanto([...args, '-p', 'original prompt'], { cwd: e2e.box.cwd, env });
    const [original] = await jsonlFiles(sessionDir);
    const before = await readFile(original!, 'utf8');

    const forked = await runPanto([...args, '-c', '--fork', '-p', 'a prompt in the fork'], { cwd: e2e.box.cwd, env });
    expect(forked.code).toBe(0);
    expect(forked.stderr).toMatch(/forked session \S+ into a new session \S+/);
    expect(forked.stdout).toBe('in the fork\n');
    expect(requestBody(e2e.server.requests[1])).toContain('original prompt');
    expect(await readFile(original!, 'utf8')).toBe(before);
    const files = await jsonlFiles(sessionDir);
    expect(files).toHaveLength(2);
    const copy = files.find((file) => file !== original)!;
    expect(kinds(await entries(copy))).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  });

  it('with piped input, /tree prints the tree and /fork switches to a copy', async () => {
    const { args, env } = e2e.openai();
    e2e.server.enqueue({ text: 'one answer' }, { text: 'after the fork' });
    const result = await runPanto(args, { cwd: e2e.box.cwd, env, stdin: 'one\n/tree\n/fork\ntwo\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('● › one → one answer  ◀ here');
    expect(result.stdout).toMatch(/forked \S+ into a new session \S+/);
    const files = await jsonlFiles(sessionDir);
    expect(files).toHaveLength(2);
    const lists = await Promise.all(files.map(entries));
    expect(lists.map((list) => kinds(list).join(',')).sort()).toEqual(['system,user,assistant', 'system,user,assistant,user,assistant']);
  });

  it('panto -r with no id and no terminal is a usage error that says how to give the id', async () => {
    const result = await runPanto(['-r'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('needs a terminal: give the id (panto --list shows them)');
  });
});
