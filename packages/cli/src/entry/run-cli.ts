/**
 * The `panto` command as a function: parse the command line → resolve the session → start
 * the mode it asks for (`--help`, `--version`, `--list`, `-p`, or interactive).
 */
import { InvalidSessionIdError, PantoError } from '@panto/core';
import { homedir as osHomedir } from 'node:os';
import { join, resolve } from 'node:path';
import { findContextFiles, withContextFiles } from '../agent/context-files.js';
import { resolveSystemPrompt } from '../agent/system-prompt.js';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from '../errors.js';
import { rewindAtStart } from '../commands/rewind-command.js';
import { listCommand } from '../session/list-sessions.js';
import { openSession } from '../session/open-session.js';
import { pickResume } from '../session/session-picker.js';
import { pantoHome, sessionDirFor } from '../session/session-dir.js';
import { openSwitchableSession, type SwitchableSession } from '../session/switchable-store.js';
import { loadMarkdownRenderer, wantsMarkdown } from '../ui/markdown.js';
import { Terminal } from '../ui/terminal.js';
import { HELP, parseArgs, USAGE, type CliOptions } from './args.js';
import type { CliEnvironment, RunPlaces } from './cli-environment.js';
import { runInteractiveMode } from './interactive-mode.js';
import { readPrintPrompt, runPrintMode } from './print-mode.js';
import { startAgent, type HeldResources } from './start-agent.js';
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
      stdout.write(`${HELP}\n`);
      return EXIT_OK;
    }
    if (options.version) {
      stdout.write(`panto ${CLI_VERSION}\n`);
      return EXIT_OK;
    }
    const places = runPlaces(options, environment);
    if (options.list) return await listCommand({ ...places, all: options.all, terminal });
    return await runAgent(options, environment, places, terminal, held);
  } catch (error) {
    return reportError(error, terminal, env);
  } finally {
    terminal.stopSpinner();
    held.unsubscribe?.();
    held.detachExtensions?.();
    await held.mcp?.close();
    await held.sandbox?.close();
  }
}

function runPlaces(options: CliOptions, environment: CliEnvironment): RunPlaces {
  const cwd = resolve(environment.cwd);
  const dataDir = pantoHome(environment.env, cwd, environment.homedir);
  return {
    cwd,
    home: environment.homedir ?? osHomedir(),
    dataDir,
    sessionDir: options.sessionDir ? resolve(cwd, options.sessionDir) : sessionDirFor(cwd, environment.env, environment.homedir),
    sessionsRoot: join(dataDir, 'sessions'),
  };
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
  const contextFiles = await findContextFiles({ cwd: places.cwd, pantoHome: places.dataDir, home: places.home, env });
  for (const problem of contextFiles.problems) terminal.warn(`panto: ${problem}`);
  const systemPrompt = withContextFiles(await resolveSystemPrompt(options.system, places.cwd), contextFiles.files);
  const printPrompt = options.print === undefined ? undefined : await readPrintPrompt(options.print, environment.stdin);

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
      contextFiles: contextFiles.files.map((file) => file.path),
      print: printPrompt !== undefined,
    },
    held,
  );
  if (options.rewind !== undefined) {
    await rewindAtStart(started.running, options.rewind);
    started.danglingUser = null;
  }
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
  if (usageError) terminal.note(USAGE);
  if (env.PANTO_DEBUG === '1' && error instanceof Error && error.stack) terminal.note(error.stack);
  else if (!usageError && !(error instanceof PantoError) && !(error instanceof CliError)) {
    terminal.note('(set PANTO_DEBUG=1 for details)');
  }
  return usageError ? EXIT_USAGE : EXIT_FAILURE;
}
