/**
 * The `panto` command as a function: parse the command line → resolve the session → start
 * the mode it asks for (`--help`, `--version`, `--list`, `-p` — one prompt, or prompts on
 * stdin —, interactive), or serve the Agent Client Protocol (`panto acp`).
 */
import { InvalidSessionIdError, PantoError } from '@panto/core';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from '../errors.js';
import { listPromptsCommand } from '../commands/list-prompts.js';
import { rewindAtStart } from '../commands/rewind-command.js';
import { listCommand } from '../session/list-sessions.js';
import { openSession } from '../session/open-session.js';
import { pickResume } from '../session/session-picker.js';
import { openSwitchableSession, type SwitchableSession } from '../session/switchable-store.js';
import { loadMarkdownRenderer, wantsMarkdown } from '../ui/markdown.js';
import { Terminal } from '../ui/terminal.js';
import { fitText, outputWidth } from '../ui/wrap.js';
import { HELP, parseArgs, USAGE, type CliOptions } from './args.js';
import type { CliEnvironment, RunPlaces } from './cli-environment.js';
import { runPlaces, startingPrompt } from './run-places.js';
import { runACPMode } from './acp-mode.js';
import { runInteractiveMode } from './interactive-mode.js';
import { runStreamInputMode } from './stream-input-mode.js';
import { readPrintPrompt, runPrintMode } from './print-mode.js';
import { releaseHeld, startAgent, type HeldResources } from './start-agent.js';
import { CLI_VERSION } from '../version.js';

/**
 * Runs the `panto` command and resolves to its exit code: 0 ok, 1 runtime failure, 2 usage
 * error (130 when a `-p` turn is interrupted). Never throws; failures are reported in one
 * line on stderr (with a stack trace when `PANTO_DEBUG=1`).
 *
 * @example
 * process.exitCode = await run({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd(),
 *   stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
 */
export async function run(environment: CliEnvironment): Promise<number> {
  const { env, stdout } = environment;
  const terminal = new Terminal(stdout, environment.stderr, env);
  const held: HeldResources = {};
  try {
    const options = parseArgs(environment.argv);
    if (options.help) {
      stdout.write(`${fitText(HELP, outputWidth(stdout))}\n`);
      return EXIT_OK;
    }
    if (options.version) {
      stdout.write(`panto ${CLI_VERSION}\n`);
      return EXIT_OK;
    }
    if (options.acp) return await runACPMode(options, environment);
    const places = runPlaces(options, environment);
    if (options.list) return await listing(options, environment, places, terminal);
    return await runAgent(options, environment, places, terminal, held);
  } catch (error) {
    return reportError(error, terminal, env);
  } finally {
    terminal.stopSpinner();
    await releaseHeld(held);
  }
}

/** `--list`: this folder's sessions; with `-c` / `-r`, that session's prompts. */
async function listing(options: CliOptions, environment: CliEnvironment, places: RunPlaces, terminal: Terminal): Promise<number> {
  if (!options.continue && options.resume === undefined && !options.pick) return await listCommand({ ...places, all: options.all, terminal });
  const resume = options.pick ? await pickResume(places.sessionDir, environment, terminal) : options.resume;
  if (options.pick && resume === undefined) return EXIT_OK;
  return await listPromptsCommand({ session: resume === undefined ? { continue: true } : { resume }, places, terminal });
}

/** A run of the agent: its prompts read, its session resolved, the agent started, then `-p` or interactive mode. */
async function runAgent(options: CliOptions, environment: CliEnvironment, places: RunPlaces, terminal: Terminal, held: HeldResources): Promise<number> {
  const { env, stdout } = environment;
  // Loaded in the background (importing the renderer takes a few hundred ms): answers are
  // rendered once it is there, which is long before a model's first answer in practice.
  const markdownReady = wantsMarkdown(stdout, env)
    ? loadMarkdownRenderer(stdout.columns).then(
        (render) => {
          terminal.renderMarkdown = render;
        },
        () => undefined,
      )
    : Promise.resolve();
  const { systemPrompt, contextFiles } = await startingPrompt(options.system, places, env, terminal);
  // With --input-format stream-json the prompts come on stdin as the run goes.
  const streamed = options.inputFormat === 'stream-json';
  const printPrompt = options.print === undefined || streamed ? undefined : await readPrintPrompt(options.print, environment.stdin);

  const session = await resolveSession(options, environment, places, terminal);
  if (session === undefined) return EXIT_OK;
  const started = await startAgent(
    {
      options,
      environment,
      places,
      terminal,
      session,
      systemPrompt,
      contextFiles,
      print: options.print !== undefined,
    },
    held,
  );
  if (options.rewind !== undefined) {
    await rewindAtStart(started.running, options.rewind);
    started.danglingUser = null;
  }
  if (streamed) return await runStreamInputMode(started.running, environment.stdin, started.danglingUser);
  if (printPrompt !== undefined) return await runPrintMode(started.running, printPrompt, started.danglingUser, markdownReady, options.outputFormat);
  return await runInteractiveMode(started, { session, options, environment, places });
}

/** The session the flags ask for (`-r` without an id: the one picked); undefined when the picker was cancelled. */
async function resolveSession(options: CliOptions, environment: CliEnvironment, places: RunPlaces, terminal: Terminal): Promise<SwitchableSession | undefined> {
  let resume = options.resume;
  if (options.pick) {
    resume = await pickResume(places.sessionDir, environment, terminal);
    if (resume === undefined) return undefined;
  }
  const session = await openSwitchableSession(
    {
      continue: options.continue,
      noSession: options.noSession,
      fork: options.fork,
      ...(resume === undefined ? {} : { resume }),
    },
    (request) => openSession(request, { cwd: places.cwd, sessionDir: places.sessionDir, sessionsRoot: places.sessionsRoot }),
  );
  if (session.notice) terminal.note(session.notice);
  return session;
}

function reportError(error: unknown, terminal: Terminal, env: Readonly<Record<string, string | undefined>>): number {
  const usageError = error instanceof UsageError || error instanceof InvalidSessionIdError;
  const message = error instanceof Error ? error.message : String(error);
  terminal.error(`panto: ${message}`);
  if (usageError) terminal.note(fitText(USAGE, outputWidth(terminal.stderr)));
  if (env.PANTO_DEBUG === '1' && error instanceof Error && error.stack) terminal.note(error.stack);
  else if (!usageError && !(error instanceof PantoError) && !(error instanceof CliError)) {
    terminal.note('(set PANTO_DEBUG=1 for details)');
  }
  return usageError ? EXIT_USAGE : EXIT_FAILURE;
}
