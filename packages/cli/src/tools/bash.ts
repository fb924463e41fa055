import type { Tool, ToolInputSchema, ToolOutput } from '@panto/core';
import { spawn } from 'node:child_process';
import {
  NEED_DESCRIPTIONS,
  needsBeyond,
  parseNeeds,
  type CommandSandbox,
  type SandboxedCommand,
  type SandboxGrants,
  type SandboxNeed,
} from '../sandbox/policy.js';
import { commandEnvironment } from './command-env.js';
import { errorResult, optionalPositiveInteger, requiredString, ToolInputError, type ToolInput } from './input.js';
import { OutputTail } from './output-tail.js';
import { killProcessTree, newRunId, withRunId, type ProcessTree } from './process-tree.js';
import { DEFAULT_LIMITS, formatSize, type Limits } from './truncate.js';

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
  /**
   * The OS sandbox every command runs in; none: commands run with the user's rights (and
   * the host should ask before each one).
   */
  sandbox?: CommandSandbox;
  /** The needs the user granted to a call beyond the sandbox's standing ones (see {@link SandboxGrants}); none without it. */
  grants?: SandboxGrants;
}

/**
 * `bash { command, timeout_ms?, needs? }`: runs `bash -c command` in the working folder,
 * stdin closed, stdout and stderr combined, without the providers' credentials in its
 * environment — inside the sandbox when one is given, with the `needs` the user granted
 * lifted. The output is capped (its end is kept, with a note of what was cut) and the exit
 * code reported. A timeout, an abort, or panto exiting while the command runs kills
 * everything the command started ({@link killProcessTree}); what a command that finished
 * left running in the background is left alone outside a sandbox, and ends with it inside.
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
      `everything it started is killed. Do not start interactive programs.${options.sandbox ? ` ${options.sandbox.describe()}` : ''}`,
    input_schema: bashSchema(defaultTimeout, options.sandbox !== undefined),
    execute: async (input, context) => runBash(options, limits, defaultTimeout, input, context),
  };
}

function bashSchema(defaultTimeout: number, sandboxed: boolean): ToolInputSchema {
  const properties: NonNullable<ToolInputSchema['properties']> = {
    command: { type: 'string', description: 'The command line, run with bash -c.', examples: ['ls'] },
    timeout_ms: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_BASH_TIMEOUT_MS,
      description: `Kill the command after this many milliseconds. Default ${defaultTimeout}.`,
    },
  };
  if (sandboxed) {
    properties.needs = {
      type: 'array',
      items: { type: 'string', enum: ['network', 'write', 'full-access'] },
      uniqueItems: true,
      description: `Only when the command cannot work inside the sandbox: ${Object.entries(NEED_DESCRIPTIONS)
        .map(([need, meaning]) => `"${need}" = ${meaning}`)
        .join('; ')}. The user is asked to approve.`,
    };
  }
  return { type: 'object', properties, required: ['command'] };
}

async function runBash(
  options: BashToolOptions,
  limits: Limits,
  defaultTimeout: number,
  input: ToolInput,
  context: { signal: AbortSignal; toolCallId: string },
): Promise<ToolOutput> {
  const command = requiredString(input, 'command');
  const timeout = optionalPositiveInteger(input, 'timeout_ms') ?? defaultTimeout;
  if (timeout > MAX_BASH_TIMEOUT_MS) return errorResult(`timeout_ms may be at most ${MAX_BASH_TIMEOUT_MS}`);
  const { sandbox } = options;
  let granted: ReadonlySet<SandboxNeed> = new Set();
  if (sandbox !== undefined) {
    const needs = sandboxNeeds(input);
    granted = options.grants?.take(context.toolCallId) ?? new Set();
    const missing = needsBeyond(needs, new Set([...sandbox.standing, ...granted]));
    if (missing.length > 0)
      return errorResult(`Not run: ${missing.map((need) => NEED_DESCRIPTIONS[need]).join(' and ')} ${missing.length === 1 ? 'was' : 'were'} not granted.`);
  }
  if (context.signal.aborted) return errorResult('Aborted before the command started.');
  const env = { ...commandEnvironment(options.env ?? process.env), PAGER: 'cat', GIT_PAGER: 'cat' };
  const inSandbox = sandbox !== undefined && !granted.has('full-access');
  const launch: SandboxedCommand = inSandbox ? sandbox.wrap(command, granted) : { file: 'bash', args: ['-c', command], env: {} };
  const output = new OutputTail(limits.maxBytes * 2);
  const outcome = await runCommand({ ...launch, env: { ...env, ...launch.env } }, { cwd: options.cwd, timeout, signal: context.signal }, output);
  const settled = (await launch.settle?.()) ?? [];
  const result = withNotes(commandResult(outcome, output.render(limits), timeout), settled);
  if (!inSandbox || typeof result === 'string' || outcome.ended !== undefined) return result;
  return { ...result, content: `${result.content}\n[ran in the ${sandbox.mode} sandbox: if its limits made the command fail, call bash again with "needs"]` };
}

/** The result with the sandbox's notes after it (what it undid is news to the model, success or not). */
function withNotes(result: ToolOutput, notes: readonly string[]): ToolOutput {
  if (notes.length === 0) return result;
  return typeof result === 'string' ? `${result}\n${notes.join('\n')}` : { ...result, content: `${result.content}\n${notes.join('\n')}` };
}

function sandboxNeeds(input: ToolInput): Set<SandboxNeed> {
  try {
    return parseNeeds(input.needs);
  } catch (error) {
    throw new ToolInputError((error as Error).message);
  }
}

/** How a command ended: its exit code or signal, or why it could not run; `ended` when panto ended it. */
interface CommandOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
  ended?: 'timeout' | 'abort';
}

/**
 * Runs the command (`bash -c command`, or the sandbox's wrapping of it) with stdin closed and both output streams into `output`; on a
 * timeout or an abort, kills everything the command started. Resolves once the shell has
 * exited and its pipes are closed (or their grace period is over).
 */
function runCommand(
  launch: { file: string; args: readonly string[]; env: Record<string, string> },
  run: { cwd: string; timeout: number; signal: AbortSignal },
  output: OutputTail,
): Promise<CommandOutcome> {
  const runId = newRunId();
  const child = spawn(launch.file, launch.args, {
    cwd: run.cwd,
    // Its own process group, and a run id every child inherits (bwrap passes it on), so
    // that a timeout or an abort can find and kill everything it started.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: withRunId(launch.env, runId),
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
