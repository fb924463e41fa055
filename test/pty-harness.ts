/**
 * The built CLI in a real pseudo-terminal (util-linux `script` allocates it), for the tests
 * of what only a terminal does: keys, pickers, prompts, history, rendering. What the test
 * writes arrives as keystrokes; what the CLI writes (stdout and stderr, both the terminal)
 * is collected raw, and `screen()` strips the escape sequences.
 */
import { spawn, spawnSync } from 'node:child_process';
import { CLI, until } from './cli-harness.js';

const script = spawnSync('script', ['--version'], { encoding: 'utf8' });
export const hasScript = script.status === 0 && script.stdout.includes('util-linux');

const ANSI = /\x1b\[[0-9;?]*[A-Za-z~]|\x1b[>=]/g;

export const KEYS = { up: '\x1b[A', down: '\x1b[B', enter: '\r', escape: '\x1b', ctrlC: '\x03', ctrlD: '\x04', altEnter: '\x1b\r' } as const;

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

export interface PtyCli {
  /** Everything written to the terminal so far, escape sequences included. */
  raw(): string;
  /** What was written, without escape sequences. */
  screen(): string;
  /** What was written after the last time `mark()` was called, without escape sequences. */
  sinceMark(): string;
  mark(): void;
  type(keys: string): void;
  /** Waits until `pattern` is on the screen since the mark. */
  see(pattern: string | RegExp, what?: string): Promise<void>;
  exited: Promise<number | null>;
  kill(): void;
}

/** Starts the built CLI with `args` in a pseudo-terminal of `columns` (default 160) by 50. */
export function startPtyPanto(args: readonly string[], options: { cwd: string; env: Record<string, string>; columns?: number }): PtyCli {
  const command = [`stty cols ${options.columns ?? 160} rows 50;`, 'exec', shellQuote(process.execPath), shellQuote(CLI), ...args.map(shellQuote)].join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: options.cwd, env: { TERM: 'xterm-256color', ...options.env }, stdio: 'pipe' });
  let raw = '';
  let markAt = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const sinceMark = () => raw.slice(markAt).replace(ANSI, '');
  return {
    raw: () => raw,
    screen: () => raw.replace(ANSI, ''),
    sinceMark,
    mark: () => {
      markAt = raw.length;
    },
    type: (keys) => void child.stdin.write(keys),
    see: (pattern, what) =>
      until(what ?? `the screen to show ${String(pattern)}`, () => (typeof pattern === 'string' ? sinceMark().includes(pattern) : pattern.test(sinceMark()))),
    exited,
    kill: () => void child.kill('SIGKILL'),
  };
}
