/**
 * Supervision shared by the local emulator launchers: keep the tail of a child's output
 * for error messages, wait for readiness, and make sure the child dies with this process.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** How much of a child's stdout/stderr is kept for error messages. */
const OUTPUT_TAIL_BYTES = 16 * 1024;

/** Keeps the last {@link OUTPUT_TAIL_BYTES} a child wrote to stdout and stderr. */
export class OutputTail {
  #text = '';

  constructor(child: ChildProcess) {
    const keep = (chunk: Buffer): void => {
      this.#text = (this.#text + chunk.toString('utf8')).slice(-OUTPUT_TAIL_BYTES);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  toString(): string {
    return this.#text.trim() === '' ? '(no output)' : this.#text.trim();
  }
}

/** A TCP port on loopback that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolvePort(address.port);
        else reject(new Error('could not allocate a free port'));
      });
    });
  });
}

/**
 * Refuses a port something already listens on: otherwise the readiness probe could reach
 * that other server and report an emulator ready that never started.
 */
export async function assertPortFree(port: number): Promise<void> {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new RangeError(`port must be an integer from 1 to 65535, not ${port}`);
  await new Promise<void>((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} is already in use`, { cause: error }) : error);
    });
    server.listen(port, '0.0.0.0', () => server.close(() => resolvePort()));
  });
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Kills `child` (its whole process group: launchers spawn it `detached`) when this process
 * exits, and does not let it keep this process alive. The child must also watch its stdin
 * and stop when it closes, which covers this process being killed outright.
 */
export function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const each of running) signalGroup(each, 'SIGTERM');
    });
  }
}

/** Sends `signal` to the child's process group, or to the child when it has none. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Stops a supervised child: SIGTERM to its group, SIGKILL if it is still there after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.stdin?.end();
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
    running.delete(child);
  }
}

/**
 * Calls `probe` every `intervalMs` until it resolves true, the child exits, or `timeoutMs`
 * passes; the two failures reject with an error that quotes the child's output.
 */
export async function waitUntilReady(
  what: string,
  child: ChildProcess,
  output: OutputTail,
  probe: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let exited: string | undefined;
  const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    exited = signal === null ? `exit code ${String(code)}` : `signal ${signal}`;
  };
  child.once('exit', onExit);
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  try {
    for (;;) {
      if (spawnError !== undefined) {
        throw new Error(`${what} could not be started: ${spawnError.message}`, { cause: spawnError });
      }
      if (exited !== undefined) {
        throw new Error(`${what} exited before it was ready (${exited}). Its output:\n${output.toString()}`);
      }
      // A probe that fails means not ready yet; the deadline below reports a service that never is.
      if (await probe().catch(() => false)) return;
      if (Date.now() > deadline) {
        throw new Error(`${what} was not ready after ${options.timeoutMs} ms. Its output:\n${output.toString()}`);
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, options.intervalMs ?? 200));
    }
  } finally {
    child.off('exit', onExit);
  }
}
