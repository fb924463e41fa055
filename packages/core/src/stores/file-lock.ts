/**
 * An exclusive, kernel-held lock on an open file: an open-file-description lock
 * (`fcntl(F_OFD_SETLK)`) on Linux, `flock` on macOS, `LockFileEx` on Windows, through the
 * well-kept native addon `fs-native-extensions` (prebuilt for each platform, no compiler).
 *
 * Why the kernel's lock and not a lock file: the kernel gives the lock to one open file at
 * a time and takes it back the moment its holder closes the file or dies, SIGKILL included.
 * Nothing is ever left behind to judge "stale", so no contender can take over a lock that
 * is still held — the flaw of every lock-file scheme (see docs/session-format.md).
 */
import type { FileHandle } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { LockTimeoutError } from '../errors.js';

export interface FileLockOptions {
  /** Give up after this long (default 10 s; a holder keeps the lock for one append, milliseconds). */
  timeoutMs?: number;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

interface NativeLocks {
  tryLock(fd: number): boolean;
  unlock(fd: number): void;
}

let native: NativeLocks | undefined;

/**
 * Loaded on first use, through `require` rather than `import`: bundles of code that never
 * writes a session file (the Lambda functions) neither carry nor load the native addon.
 */
function locks(): NativeLocks {
  native ??= createRequire(import.meta.url)('fs-native-extensions') as NativeLocks;
  return native;
}

/**
 * Runs `fn` holding the exclusive lock of `handle` (which must be open for writing). Waits
 * for another holder with a short backoff; `LockTimeoutError` (naming `path`) after
 * `timeoutMs`. Two handles contend even inside one process.
 */
export async function withFileLock<T>(handle: FileHandle, path: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const { tryLock, unlock } = locks();
  for (let attempt = 0; !tryLock(handle.fd); attempt++) {
    if (Date.now() >= deadline) throw new LockTimeoutError(path, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** Math.min(attempt, 5), 25)));
  }
  try {
    return await fn();
  } finally {
    unlock(handle.fd);
  }
}
