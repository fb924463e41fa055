/** Helpers for the CLI's own tests (not part of the public API). */
import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { ToolContext } from '@panto/core';

/** A writable that keeps what was written. */
export class CapturedOutput extends Writable {
  text = '';
  readonly isTTY: boolean;
  readonly columns = 100;

  constructor(isTTY = false) {
    super();
    this.isTTY = isTTY;
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** A stdin that is not a terminal, with the given lines (ended, unless `keepOpen`). */
export function pipedStdin(lines: readonly string[] = [], options: { keepOpen?: boolean } = {}): PassThrough {
  const stream = new PassThrough();
  if (lines.length > 0) stream.write(`${lines.join('\n')}\n`);
  if (!options.keepOpen) stream.end();
  return stream;
}

/** A fresh temporary folder (real path), removed by the returned cleanup. */
export async function tempDir(prefix = 'panto-cli-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** A tool context with a signal that is never aborted, or the given one. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, toolCallId: 'call_test' };
}

/** Whether a process with this pid exists; a zombie (dead, not yet reaped) still counts. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/**
 * Resolves true once no process has this pid, false if one still does after `timeoutMs`.
 * The deadline is generous because an orphan killed after its parent died is reaped by
 * init, and some inits (this sandbox's) reap only every few seconds.
 */
export async function processGone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processExists(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Processes a test started and may leave behind: `killAll()` them after each test, whatever happened. */
export class StrayProcesses {
  readonly #pids = new Set<number>();

  /** Returns the pids, to be used inline. */
  add(pids: readonly number[]): readonly number[] {
    for (const pid of pids) this.#pids.add(pid);
    return pids;
  }

  killAll(): void {
    for (const pid of this.#pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.#pids.clear();
  }
}

/** The command name of a process (Linux: `/proc/<pid>/comm`), or undefined once it is gone. */
export function commandName(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}
