import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { PantoError } from '../errors.js';

export interface FileLockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is stale whoever holds it (default 30 s; appends take milliseconds). */
  staleMs?: number;
}

interface LockInfo {
  pid: number;
  host: string;
  time: number;
  token: string;
}

/**
 * Runs `fn` holding an exclusive lock file (`O_CREAT|O_EXCL`). A lock left by a process
 * that died (same host, pid gone) or older than `staleMs` is taken over.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const inode = await acquire(lockPath, options);
  try {
    return await fn();
  } finally {
    await release(lockPath, inode);
  }
}

/** Takes the lock; returns the lock file's inode, which identifies it at release. */
async function acquire(lockPath: string, options: FileLockOptions): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  const info: LockInfo = { pid: process.pid, host: hostname(), time: Date.now(), token: `${process.pid}-${Math.random().toString(36).slice(2)}` };
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      try {
        await handle.writeFile(JSON.stringify({ ...info, time: Date.now() }));
        return (await handle.stat()).ino;
      } finally {
        await handle.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await isStale(lockPath, staleMs)) {
      // Move the stale lock aside atomically; only one contender wins the rename.
      const aside = `${lockPath}.stale-${info.token}`;
      try {
        await rename(lockPath, aside);
        await unlink(aside).catch(() => {});
      } catch {
        // Someone else took it over first; try again.
      }
      continue;
    }
    if (Date.now() > deadline) {
      throw new PantoError(`could not lock ${lockPath} within ${timeoutMs} ms: another writer holds it`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** Math.min(attempt, 5), 25)));
  }
}

async function isStale(lockPath: string, staleMs: number): Promise<boolean> {
  let info: Partial<LockInfo>;
  try {
    info = JSON.parse(await readFile(lockPath, 'utf8')) as Partial<LockInfo>;
  } catch {
    // Unreadable: being written right now, or garbage. Judge by its age.
    try {
      return Date.now() - (await stat(lockPath)).mtimeMs > staleMs;
    } catch {
      return false;
    }
  }
  if (typeof info.time === 'number' && Date.now() - info.time > staleMs) return true;
  if (info.host === hostname() && typeof info.pid === 'number' && info.pid !== process.pid) {
    try {
      process.kill(info.pid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }
  return false;
}

async function release(lockPath: string, inode: number): Promise<void> {
  try {
    // Only remove our own lock: if ours was taken over as stale, the file is another's.
    if ((await stat(lockPath)).ino === inode) await unlink(lockPath);
  } catch {
    // Already gone: nothing to release.
  }
}
