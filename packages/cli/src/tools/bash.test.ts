import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { commandName, processExists, processGone, StrayProcesses } from '../../../../test/support/processes.js';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { toolContext } from '../../../../test/support/tool-context.js';
import { createBashTool, type BashToolOptions } from './bash.js';

/** The pids a command printed, one a line, before the tool's closing note. */
function printedPids(result: unknown): number[] {
  const content = typeof result === 'string' ? result : (result as { content: string }).content;
  return content
    .split('\n')
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

const strays = new StrayProcesses();
afterEach(() => strays.killAll());

describe('bash tool', () => {
  let cwd: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: cwd, cleanup } = await tempDir());
  });
  afterEach(async () => cleanup());
  const bash = (input: Record<string, string | number>, signal?: AbortSignal, limits?: { maxBytes: number; maxLines: number }) =>
    createBashTool(limits ? { cwd, limits } : { cwd }).execute(input, toolContext(signal));

  it('runs in the working folder and reports combined output and the exit code', async () => {
    await writeFile(join(cwd, 'here.txt'), '');
    expect(await bash({ command: 'ls; echo oops >&2' })).toBe('here.txt\noops\n[exit code 0]');
  });

  it('marks a non-zero exit as an error result, output included', async () => {
    expect(await bash({ command: 'echo failing; exit 3' })).toEqual({
      content: 'failing\n[exit code 3]',
      is_error: true,
    });
  });

  it('says when there was no output', async () => {
    expect(await bash({ command: 'true' })).toBe('(no output)\n[exit code 0]');
  });

  it('closes stdin so commands that read it do not hang', async () => {
    expect(await bash({ command: 'cat; echo done' })).toBe('done\n[exit code 0]');
  });

  it('keeps the end of long output, with a note of what was cut', async () => {
    const result = String(await bash({ command: 'seq 1 100' }, undefined, { maxBytes: 10_000, maxLines: 3 }));
    expect(result).toBe('[output cut: showing the last 3 of 100 lines (9 B of 292 B)]\n98\n99\n100\n[exit code 0]');
  });

  it('stays bounded on very large output', async () => {
    const result = String(await bash({ command: 'yes panto | head -c 5000000' }, undefined, { maxBytes: 1000, maxLines: 2000 }));
    expect(result).toMatch(/^\[output cut: showing the last 167 of 833334 lines \(998 B of 4.8 MB\)\]\npanto\n/);
    expect(Buffer.byteLength(result)).toBeLessThan(1200);
  });

  it('kills the whole process group on timeout and says so', async () => {
    const pidFile = join(cwd, 'pid');
    const result = await bash({ command: `sleep 30 & echo $! > ${pidFile}; echo started; wait`, timeout_ms: 300 });
    expect(result).toEqual({
      content: 'started\n[timed out after 300 ms; the command and its children were killed]',
      is_error: true,
    });
    const child = Number(await readFile(pidFile, 'utf8'));
    expect(await processGone(child)).toBe(true);
  });

  it('kills the whole process group when the step is aborted', async () => {
    const pidFile = join(cwd, 'pid');
    const controller = new AbortController();
    const running = bash({ command: `sleep 30 & echo $! > ${pidFile}; wait` }, controller.signal);
    await vi.waitFor(async () => expect((await readFile(pidFile, 'utf8').catch(() => '')).trim()).not.toBe(''), {
      timeout: 5000,
    });
    controller.abort();
    expect(await running).toEqual({
      content: '(no output)\n[aborted; the command and its children were killed]',
      is_error: true,
    });
    const child = Number(await readFile(pidFile, 'utf8'));
    expect(await processGone(child)).toBe(true);
  });

  it('does not start when the step is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await bash({ command: `touch ${join(cwd, 'ran')}` }, controller.signal)).toMatchObject({ is_error: true });
    await expect(readFile(join(cwd, 'ran'))).rejects.toThrow();
  });

  it('returns once the shell exits even if a background process keeps the pipes open', async () => {
    const result = await bash({ command: 'sleep 30 & echo bg started' });
    expect(result).toBe('bg started\n[exit code 0]');
  });

  it('rejects a bad timeout_ms', async () => {
    await expect(bash({ command: 'true', timeout_ms: -5 })).rejects.toThrow('"timeout_ms" must be a positive integer');
    expect(await bash({ command: 'true', timeout_ms: 10 * 60 * 60 * 1000 })).toMatchObject({ is_error: true });
  });
});

describe('bash tool environment', () => {
  let cwd: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: cwd, cleanup } = await tempDir());
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await cleanup();
  });
  const bash = (env: BashToolOptions['env'], command: string) => createBashTool(env ? { cwd, env } : { cwd }).execute({ command }, toolContext());
  const keys = {
    ANTHROPIC_API_KEY: 'secret-anthropic-key',
    ANTHROPIC_AUTH_TOKEN: 'secret-anthropic-token',
    OPENAI_API_KEY: 'secret-openai-key',
  };
  const path = process.env.PATH ?? '/usr/bin:/bin';

  it('withholds the provider keys from commands and passes every other variable', async () => {
    const result = await bash(
      { PATH: path, HOME: cwd, FOO: 'bar', ...keys },
      'echo "[$ANTHROPIC_API_KEY][$ANTHROPIC_AUTH_TOKEN][$OPENAI_API_KEY]"; echo "$FOO $HOME $PATH"; env | grep secret || echo no secrets',
    );
    expect(result).toBe(`[][][]\nbar ${cwd} ${path}\nno secrets\n[exit code 0]`);
  });

  it('passes a withheld variable that PANTO_BASH_PASS_ENV names', async () => {
    const result = await bash(
      { PATH: path, ...keys, PANTO_BASH_PASS_ENV: 'FOO, ANTHROPIC_API_KEY' },
      'echo "[$ANTHROPIC_API_KEY][$ANTHROPIC_AUTH_TOKEN][$OPENAI_API_KEY]"',
    );
    expect(result).toBe('[secret-anthropic-key][][]\n[exit code 0]');
  });

  it('withholds the keys of its own process environment when given none', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'secret-anthropic-key');
    vi.stubEnv('FOO', 'bar');
    expect(await bash(undefined, 'echo "[$ANTHROPIC_API_KEY] $FOO"')).toBe('[] bar\n[exit code 0]');
  });
});

// Finding what left the process group needs /proc (and setsid); elsewhere only the group is killed.
describe.skipIf(!existsSync('/proc/self/stat'))('bash tool killing what a command started', () => {
  let cwd: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: cwd, cleanup } = await tempDir());
  });
  afterEach(async () => cleanup());
  const bash = (input: Record<string, string | number>, signal?: AbortSignal) => createBashTool({ cwd }).execute(input, toolContext(signal));
  const timedOut = (ms: number) => ({
    is_error: true,
    content: expect.stringMatching(new RegExp(`\\[timed out after ${ms} ms;`)),
  });

  it('kills a child that left the process group with setsid when the command times out', async () => {
    const result = await bash({ command: 'setsid sleep 300 & echo $!; wait', timeout_ms: 500 });
    expect(result).toEqual(timedOut(500));
    const [pid] = strays.add(printedPids(result));
    expect(pid).toBeDefined();
    expect(await processGone(pid!)).toBe(true);
  });

  it('kills a disowned setsid shell when the command times out', async () => {
    const result = await bash({ command: "setsid bash -c 'sleep 300' & disown; echo $!; sleep 300", timeout_ms: 500 });
    expect(result).toEqual(timedOut(500));
    const [pid] = strays.add(printedPids(result));
    expect(pid).toBeDefined();
    expect(await processGone(pid!)).toBe(true);
  });

  it('kills a daemon whose parent exited, re-parented to init, when the command times out', async () => {
    const result = await bash({ command: "setsid bash -c 'sleep 300 & echo $!'; sleep 300", timeout_ms: 500 });
    expect(result).toEqual(timedOut(500));
    const [pid] = strays.add(printedPids(result));
    expect(pid).toBeDefined();
    expect(await processGone(pid!)).toBe(true);
  });

  it('kills a child that left the process group with setsid when the step is aborted', async () => {
    const pidFile = join(cwd, 'pid');
    const controller = new AbortController();
    const running = bash({ command: `setsid sleep 300 & echo $! > ${pidFile}; wait` }, controller.signal);
    await vi.waitFor(async () => expect((await readFile(pidFile, 'utf8').catch(() => '')).trim()).not.toBe(''), {
      timeout: 5000,
    });
    const [pid] = strays.add([Number(await readFile(pidFile, 'utf8'))]);
    // Until it runs sleep it may still be in the command's process group; the group kill alone would do.
    await vi.waitFor(() => expect(commandName(pid!)).toBe('sleep'), { timeout: 5000 });
    controller.abort();
    expect(await running).toEqual({
      content: '(no output)\n[aborted; the command and its children were killed]',
      is_error: true,
    });
    expect(await processGone(pid!)).toBe(true);
  });

  it('leaves the background processes of a command that finished in time running', async () => {
    const result = await bash({ command: 'sleep 300 & echo $!; setsid sleep 300 & echo $!' });
    const pids = strays.add(printedPids(result));
    expect(result).toBe(`${pids.join('\n')}\n[exit code 0]`);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(processExists(pid)).toBe(true);
  });

  it('kills what a running command started when the process exits', async () => {
    const pidFile = join(cwd, 'pid');
    const script = `
      import { existsSync, readFileSync } from 'node:fs';
      import { createBashTool } from ${JSON.stringify(fileURLToPath(new URL('./bash.ts', import.meta.url)))};
      const tool = createBashTool({ cwd: ${JSON.stringify(cwd)} });
      void tool.execute({ command: ${JSON.stringify(`setsid sleep 300 & echo $! > ${pidFile}; wait`)} }, { signal: new AbortController().signal, toolCallId: 'call_exit' });
      // Exit once the setsid child runs sleep: before that it may still be in the command's process group.
      setInterval(() => {
        const pid = existsSync(${JSON.stringify(pidFile)}) ? readFileSync(${JSON.stringify(pidFile)}, 'utf8').trim() : '';
        if (pid !== '' && existsSync('/proc/' + pid + '/comm') && readFileSync('/proc/' + pid + '/comm', 'utf8').trim() === 'sleep') process.exit(0);
      }, 20);
    `;
    const repository = fileURLToPath(new URL('../../../../', import.meta.url));
    const parent = spawn(process.execPath, ['--import', 'tsx', '--conditions=@panto/source', '--input-type=module', '-e', script], {
      cwd: repository,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    parent.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => parent.once('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const [pid] = strays.add([Number(await readFile(pidFile, 'utf8'))]);
    expect(await processGone(pid!)).toBe(true);
  });
});
