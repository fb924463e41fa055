import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { commandName, processGone, StrayProcesses } from '../../../../test/support/processes.js';
import { killProcessTree, newRunId, RUN_ID_VARIABLE, withRunId, type ProcessTree } from './process-tree.js';

/** Whether the process exists and is not a zombie (killed, awaiting its reaper). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const strays = new StrayProcesses();
afterEach(() => strays.killAll());

/**
 * Runs a script the way the bash tool does (its own process group, the run id in its
 * environment) and resolves once it has printed `count` pids, one a line, and each of them
 * runs `sleep`: before that it may still be a shell or `setsid` carrying the run id, and
 * the test would not show what it names.
 */
async function startCommand(script: string, count: number, env: Record<string, string> = {}): Promise<{ tree: ProcessTree; pids: number[] }> {
  const runId = newRunId();
  const child = spawn('bash', ['-c', script], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: withRunId({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, runId),
  });
  child.stdout.on('end', () => child.stdout.destroy());
  const pids = await new Promise<number[]>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const lines = text.split('\n').filter((line) => /^\d+$/.test(line));
      if (lines.length >= count) resolve(lines.map(Number));
    });
    child.once('exit', (code) => reject(new Error(`the script exited (${String(code)}) before printing ${count} pids: ${text}`)));
  });
  child.stdout.destroy();
  strays.add([child.pid!, ...pids]);
  const deadline = Date.now() + 5000;
  while (!pids.every((pid) => commandName(pid) === 'sleep')) {
    if (Date.now() > deadline) throw new Error(`not all of ${pids.join(', ')} run sleep`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { tree: { pid: child.pid!, runId }, pids };
}

describe('withRunId', () => {
  it('adds the run id to the environment', () => {
    expect(withRunId({ PATH: '/bin' }, 'run-1')).toEqual({ PATH: '/bin', [RUN_ID_VARIABLE]: 'run-1' });
  });

  it('keeps the run ids the environment already carries', () => {
    expect(withRunId({ [RUN_ID_VARIABLE]: 'outer' }, 'inner')).toEqual({ [RUN_ID_VARIABLE]: 'outer inner' });
  });
});

// Finding processes by run id and parent links needs /proc; elsewhere only the group is killed.
describe.skipIf(!existsSync('/proc/self/stat'))('killProcessTree', () => {
  it('kills the shell, a child that called setsid and an orphan re-parented to init', async () => {
    const { tree, pids } = await startCommand("setsid sleep 300 & echo $!; setsid bash -c 'sleep 300 & echo $!'; sleep 300", 2);
    expect(pids.every(running)).toBe(true);
    killProcessTree(tree);
    for (const pid of [tree.pid, ...pids]) expect(await processGone(pid)).toBe(true);
  });

  it('kills a child that scrubbed its environment and left the group, found below the shell', async () => {
    const { tree, pids } = await startCommand('setsid env -i "$(command -v sleep)" 300 & echo $!; wait', 1);
    killProcessTree(tree);
    for (const pid of [tree.pid, ...pids]) expect(await processGone(pid)).toBe(true);
  });

  it('finds a process by any of the run ids it carries', async () => {
    const inner = `${RUN_ID_VARIABLE}="$${RUN_ID_VARIABLE} inner-run"`;
    const { tree, pids } = await startCommand(`${inner} setsid bash -c 'sleep 300 & echo $!'; sleep 300`, 1);
    expect(readFileSync(`/proc/${pids[0]!}/environ`, 'latin1')).toContain(`${RUN_ID_VARIABLE}=${tree.runId} inner-run\0`);
    killProcessTree(tree);
    for (const pid of [tree.pid, ...pids]) expect(await processGone(pid)).toBe(true);
  });

  it('leaves the processes of another run alone', async () => {
    const script = 'setsid sleep 300 & echo $!; wait';
    const mine = await startCommand(script, 1);
    const other = await startCommand(script, 1);
    killProcessTree(mine.tree);
    for (const pid of [mine.tree.pid, ...mine.pids]) expect(await processGone(pid)).toBe(true);
    expect([other.tree.pid, ...other.pids].map(running)).toEqual([true, true]);
  });

  it('never kills the process that calls it or its ancestors, even when they carry the run id', async () => {
    const runId = newRunId();
    const script = `
      import { spawn } from 'node:child_process';
      import { killProcessTree } from ${JSON.stringify(fileURLToPath(new URL('./process-tree.ts', import.meta.url)))};
      const sleeper = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
      console.log(process.pid);
      console.log(sleeper.pid);
      killProcessTree({ pid: sleeper.pid, runId: ${JSON.stringify(runId)} });
      console.log('survived');
    `;
    const parent = spawn('bash', ['-c', 'node --import tsx --conditions=@panto/source --input-type=module -e "$SCRIPT"; echo parent survived'], {
      cwd: fileURLToPath(new URL('../../../../', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
      env: withRunId({ ...process.env, SCRIPT: script } as Record<string, string>, runId),
    });
    strays.add([parent.pid!]);
    let output = '';
    parent.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      // If the guard failed they would hang, stopped: let afterEach kill them.
      strays.add(
        output
          .split('\n')
          .filter((line) => /^\d+$/.test(line))
          .map(Number),
      );
    });
    const code = await new Promise<number | null>((resolve) => parent.once('close', resolve));
    const [, sleeper, ...rest] = output.split('\n');
    expect({ code, rest }).toEqual({ code: 0, rest: ['survived', 'parent survived', ''] });
    expect(await processGone(Number(sleeper))).toBe(true);
  });
});
