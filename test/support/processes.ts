/** Processes tests start: whether one is still there, waiting for it to go, and killing what a test left behind. */
import { readFileSync } from 'node:fs';

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
