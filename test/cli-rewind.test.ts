/**
 * Checkpoints and `--rewind`, through the built CLI against the fake LLM server: turn 1
 * writes a.txt with the write tool, turn 2 runs bash that changes a.txt, deletes b.txt and
 * creates c/d.txt; rewinding to before each prompt gives back exactly the files of then.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeServerSandbox, runPanto } from './cli-harness.js';

const e2e = fakeServerSandbox();

interface Result {
  session_id: string;
  prompt_id: string;
  answer: string;
}

/** One `-p` turn whose model calls `tool` with `input` and then answers; the result object. */
async function toolTurn(extra: string[], prompt: string, tool: string, input: Record<string, unknown>): Promise<Result> {
  e2e.server.enqueue({ toolCalls: [{ name: tool, input }] }, { text: `did ${prompt}` });
  const { args, env } = e2e.openai();
  const run = await runPanto([...args, ...extra, '--yolo', '-p', prompt, '--output-format', 'json'], { cwd: e2e.box.cwd, env });
  expect(run.stderr).not.toContain('checkpoint failed');
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Result;
}

/** Every file under the working folder (relative path → content), `.git`-free as the test makes it. */
async function files(dir = e2e.box.cwd, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(out, await files(path, `${prefix}${entry.name}/`));
    else out[`${prefix}${entry.name}`] = await readFile(path, 'utf8');
  }
  return out;
}

/** The scenario of the issue: returns the two turns' results. */
async function twoTurns(): Promise<[Result, Result]> {
  const cwd = e2e.box.cwd;
  await writeFile(join(cwd, 'b.txt'), 'b\n');
  await writeFile(join(cwd, '.gitignore'), 'build/\n');
  await mkdir(join(cwd, 'build'));
  await writeFile(join(cwd, 'build', 'out.log'), 'first build\n');
  const first = await toolTurn([], 'write a', 'write', { path: 'a.txt', content: 'one\n' });
  const command = 'echo two > a.txt && rm b.txt && mkdir -p c && echo d > c/d.txt && echo second build > build/out.log';
  const second = await toolTurn(['-c'], 'change things', 'bash', { command });
  expect(await files()).toEqual({ '.gitignore': 'build/\n', 'a.txt': 'two\n', 'build/out.log': 'second build\n', 'c/d.txt': 'd\n' });
  return [first, second];
}

async function rewind(session: string, prompt: string, more: string[] = []): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const { args, env } = e2e.openai();
  return await runPanto([...args, '-r', session, '--rewind', prompt, ...more], { cwd: e2e.box.cwd, env });
}

describe('checkpoints and --rewind', { timeout: 90_000 }, () => {
  it("--rewind to turn 2's prompt gives the files after turn 1; to turn 1's, the files before it (bash changes included, ignored files left alone)", async () => {
    const [first, second] = await twoTurns();
    const toSecond = await rewind(second.session_id, second.prompt_id);
    expect(toSecond.code, toSecond.stderr).toBe(0);
    expect(await files()).toEqual({ '.gitignore': 'build/\n', 'a.txt': 'one\n', 'b.txt': 'b\n', 'build/out.log': 'second build\n' });
    expect(toSecond.stderr).toContain('files restored: a.txt, b.txt');
    expect(toSecond.stderr).toContain('files removed (created since): c/d.txt');

    // A unique prefix of the id is enough; the conversation continues from before turn 1.
    e2e.server.enqueue({ text: 'starting over' });
    const toFirst = await rewind(first.session_id, first.prompt_id.slice(0, 30), ['-p', 'start again']);
    expect(toFirst.code, toFirst.stderr).toBe(0);
    expect(await files()).toEqual({ '.gitignore': 'build/\n', 'b.txt': 'b\n', 'build/out.log': 'second build\n' });
    const sent = (e2e.server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(sent.map((message) => message.role)).toEqual(['system', 'user']);
    expect(sent[1]!.content).toBe('start again');
  });

  it('--rewind continues the session from before the prompt: a later -c does not see the turns after it', async () => {
    const [, second] = await twoTurns();
    expect((await rewind(second.session_id, second.prompt_id)).code).toBe(0);
    e2e.server.enqueue({ text: 'ok' });
    const { args, env } = e2e.openai();
    const next = await runPanto([...args, '-c', '-p', 'what now?'], { cwd: e2e.box.cwd, env });
    expect(next.code, next.stderr).toBe(0);
    const sent = JSON.stringify(e2e.server.requests.at(-1)!.body);
    expect(sent).toContain('write a');
    expect(sent).not.toContain('change things');
  });

  it('a file edited by the user after the turn is named and kept; the rest is rewound', async () => {
    const [, second] = await twoTurns();
    await writeFile(join(e2e.box.cwd, 'a.txt'), 'mine\n');
    const run = await rewind(second.session_id, second.prompt_id);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('kept, changed outside panto since then: a.txt');
    expect(await files()).toEqual({ '.gitignore': 'build/\n', 'a.txt': 'mine\n', 'b.txt': 'b\n', 'build/out.log': 'second build\n' });
  });

  it('an unknown prompt id is a clear error and changes nothing', async () => {
    const [first] = await twoTurns();
    const before = await files();
    const run = await rewind(first.session_id, 'not-a-prompt');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no prompt "not-a-prompt" in session');
    expect(await files()).toEqual(before);
  });

  it('checkpoints are owner-only, listed by /session, and removed with their session', async () => {
    const [first] = await twoTurns();
    const dir = join(e2e.box.home, 'checkpoints', first.session_id);
    const modes: number[] = [];
    const walk = async (path: string): Promise<void> => {
      const stats = await stat(path);
      modes.push(stats.mode & 0o077);
      if (stats.isDirectory()) for (const name of await readdir(path)) await walk(join(path, name));
    };
    await walk(join(e2e.box.home, 'checkpoints'));
    expect(modes.length).toBeGreaterThan(5);
    expect(modes.every((mode) => mode === 0)).toBe(true);

    const { args, env } = e2e.openai();
    const listed = await runPanto([...args, '-c'], { cwd: e2e.box.cwd, env, stdin: '/session\n' });
    expect(listed.stdout).toMatch(new RegExp(`checkpoints {2}2 prompts · .* · ${dir.replaceAll('/', '\\/')}`));

    const sessionFile = (await readdir(join(e2e.box.home, 'sessions'), { recursive: true })).find((name) => name.endsWith(`${first.session_id}.jsonl`));
    await rm(join(e2e.box.home, 'sessions', sessionFile!));
    e2e.server.enqueue({ text: 'new session' });
    expect((await runPanto([...args, '-p', 'hello'], { cwd: e2e.box.cwd, env })).code).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });

  it('without git, panto says it keeps no checkpoints and runs the turn', async () => {
    e2e.server.enqueue({ text: 'fine without git' });
    const { args, env } = e2e.openai();
    const run = await runPanto([...args, '-p', 'hi'], { cwd: e2e.box.cwd, env: { ...env, PATH: join(e2e.box.root, 'no-bin') } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('fine without git\n');
    expect(run.stderr).toContain('no checkpoints of the files: git is not installed');
  });
});
