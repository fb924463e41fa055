import type { Tool, ToolOutput } from '@panto/core';
import { spawn } from 'node:child_process';
import { commandEnvironment } from './command-env.js';
import { errorResult, optionalPositiveInteger, requiredString, type ToolInput } from './input.js';
import { killProcessTree, newRunId, withRunId, type ProcessTree } from './process-tree.js';
import { DEFAULT_LIMITS, formatSize, truncateTail, type Limits } from './truncate.js';

export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** The most a model may ask for: an hour. */
export const MAX_BASH_TIMEOUT_MS = 60 * 60 * 1000;
/** After the shell exits, how long its pipes may stay open (held by background processes) before we stop reading. */
const PIPE_GRACE_MS = 250;

export interface BashToolOptions {
  cwd: string;
  limits?: Limits;
  /** Used when the call gives no `timeout_ms`. Default 120 s. */
  defaultTimeoutMs?: number;
  /**
   * The environment the commands start from; `process.env` by default. The providers'
   * credentials are withheld from it, except those `PANTO_BASH_PASS_ENV` names (see
   * {@link commandEnvironment}).
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * `bash { command, timeout_ms? }`: runs `bash -c command` in the working folder, stdin
 * closed, stdout and stderr combined, without the providers' credentials in its
 * environment. The output is capped (its end is kept, with a note of what was cut) and the
 * exit code reported. A timeout, an abort, or panto exiting while the command runs kills
 * everything the command started ({@link killProcessTree}); what a command that finished
 * left running in the background is left alone.
 *
 * @example
 * createBashTool({ cwd }).execute({ command: 'npm test', timeout_ms: 300_000 }, context);
 */
export function createBashTool(options: BashToolOptions): Tool {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const defaultTimeout = options.defaultTimeoutMs ?? DEFAULT_BASH_TIMEOUT_MS;
  return {
    name: 'bash',
    description:
      'Run a shell command with bash -c in the working folder. stdin is closed; stdout and stderr are ' +
      `combined. Output over ${limits.maxLines} lines or ${formatSize(limits.maxBytes)} is cut to its end. ` +
      `The exit code is reported. timeout_ms defaults to ${defaultTimeout} ms; on timeout the command and ` +
      'everything it started is killed. Do not start interactive programs.',
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line, run with bash -c.', examples: ['ls'] },
        timeout_ms: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_BASH_TIMEOUT_MS,
          description: `Kill the command after this many milliseconds. Default ${defaultTimeout}.`,
        },
      },
      required: ['command'],
    },
    execute: async (input, context) => runBash(options, limits, defaultTimeout, input, context.signal),
  };
}

async function runBash(options: BashToolOptions, limits: Limits, defaultTimeout: number, input: ToolInput, signal: AbortSignal): Promise<ToolOutput> {
  const command = requiredString(input, 'command');
  const timeout = optionalPositiveInteger(input, 'timeout_ms') ?? defaultTimeout;
  if (timeout > MAX_BASH_TIMEOUT_MS) return errorResult(`timeout_ms may be at most ${MAX_BASH_TIMEOUT_MS}`);
  if (signal.aborted) return errorResult('Aborted before the command started.');
  const output = new OutputTail(limits.maxBytes * 2);
  const outcome = await runCommand(command, { cwd: options.cwd, env: options.env ?? process.env, timeout, signal }, output);
  return commandResult(outcome, output.render(limits), timeout);
}

/** How a command ended: its exit code or signal, or why it could not run; `ended` when panto ended it. */
interface CommandOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
  ended?: 'timeout' | 'abort';
}

/**
 * Runs `bash -c command` with stdin closed and both output streams into `output`; on a
 * timeout or an abort, kills everything the command started. Resolves once the shell has
 * exited and its pipes are closed (or their grace period is over).
 */
function runCommand(
  command: string,
  run: { cwd: string; env: Readonly<Record<string, string | undefined>>; timeout: number; signal: AbortSignal },
  output: OutputTail,
): Promise<CommandOutcome> {
  const runId = newRunId();
  const child = spawn('bash', ['-c', command], {
    cwd: run.cwd,
    // Its own process group, and a run id every child inherits, so that a timeout or an
    // abort can find and kill everything it started.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: withRunId({ ...commandEnvironment(run.env), PAGER: 'cat', GIT_PAGER: 'cat' }, runId),
  });
  const tree: ProcessTree | undefined = child.pid === undefined ? undefined : { pid: child.pid, runId };
  if (tree) track(tree);
  let ended: 'timeout' | 'abort' | undefined;
  const end = (why: 'timeout' | 'abort') => {
    ended ??= why;
    if (tree && running.has(tree)) killProcessTree(tree);
  };
  const timer = setTimeout(() => end('timeout'), run.timeout);
  const onAbort = () => end('abort');
  run.signal.addEventListener('abort', onAbort, { once: true });
  const finished = () => {
    // The shell is reaped: its pid may name another process now, and what it left in the
    // background is meant to stay.
    if (tree) running.delete(tree);
    clearTimeout(timer);
    run.signal.removeEventListener('abort', onAbort);
  };
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise<CommandOutcome>((resolve) => {
    let grace: NodeJS.Timeout | undefined;
    const settle = (outcome: CommandOutcome) => {
      finished();
      resolve(ended === undefined ? outcome : { ...outcome, ended });
    };
    child.once('error', (error) => settle({ code: null, signal: null, error }));
    child.once('exit', () => {
      finished();
      // Background processes may hold the pipes open; read what is there, then stop.
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS);
    });
    child.once('close', (code, exitSignal) => {
      if (grace) clearTimeout(grace);
      settle({ code, signal: exitSignal });
    });
  });
}

/** The tool result: the output, then how the command ended; an error result unless it exited 0. */
function commandResult(outcome: CommandOutcome, shown: string, timeout: number): ToolOutput {
  if (outcome.error) return errorResult(`Could not run bash: ${outcome.error.message}`);
  let ending: string;
  let isError = true;
  if (outcome.ended === 'timeout') ending = `[timed out after ${timeout} ms; the command and its children were killed]`;
  else if (outcome.ended === 'abort') ending = '[aborted; the command and its children were killed]';
  else if (outcome.signal !== null) ending = `[killed by ${outcome.signal}]`;
  else {
    ending = `[exit code ${outcome.code ?? 'unknown'}]`;
    isError = outcome.code !== 0;
  }
  const content = `${shown}\n${ending}`;
  return isError ? errorResult(content) : content;
}

/** The commands whose shell has not exited yet: killed, with all they started, if panto exits. */
const running = new Set<ProcessTree>();
let exitHookInstalled = false;

function track(tree: ProcessTree): void {
  running.add(tree);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const live of running) killProcessTree(live);
  });
}

/** Keeps the last `keep` bytes of a stream (whole chunks), and counts all of it. */
class OutputTail {
  readonly #keep: number;
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  #dropped = 0;
  #totalNewlines = 0;
  #lastByte: number | undefined;

  constructor(keep: number) {
    this.#keep = keep;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) this.#totalNewlines++;
    this.#lastByte = chunk[chunk.length - 1];
    while (this.#chunks.length > 1 && this.#bytes - this.#chunks[0]!.length >= this.#keep) {
      const first = this.#chunks.shift()!;
      this.#bytes -= first.length;
      this.#dropped += first.length;
    }
  }

  render(limits: Limits): string {
    const totalBytes = this.#dropped + this.#bytes;
    if (totalBytes === 0) return '(no output)';
    let text = Buffer.concat(this.#chunks).toString('utf8');
    // The kept part may start in the middle of a line: drop that partial line.
    if (this.#dropped > 0) text = text.slice(text.indexOf('\n') + 1);
    const totalLines = this.#totalNewlines + (this.#lastByte === 0x0a ? 0 : 1);
    const tail = truncateTail(text, limits);
    if (this.#dropped === 0 && !tail.truncated) return text.endsWith('\n') ? text.slice(0, -1) : text;
    return (
      `[output cut: showing the last ${tail.keptLines} of ${totalLines} lines ` + `(${formatSize(tail.keptBytes)} of ${formatSize(totalBytes)})]\n${tail.text}`
    );
  }
}
