import {
  Agent,
  assistantText,
  ExtensionHost,
  extensionAgent,
  InvalidSessionIdError,
  PantoError,
  ToolRegistry,
  type ExtensionContext,
  type StepResult,
} from '@panto/core';
import { MCPServers } from '@panto/core/mcp';
import { readFileSync } from 'node:fs';
import { homedir as osHomedir } from 'node:os';
import { join, resolve } from 'node:path';
import { App } from './running-agent.js';
import { terminalApproval } from '../ui/approval-prompt.js';
import { Approvals, chainToolGuards, type AskApproval } from '../agent/approvals.js';
import { HELP, parseArgs, USAGE, type CliOptions } from './args.js';
import { BUILT_IN_COMMANDS, describeSettings, type LookupPlaces } from '../commands/slash-commands.js';
import { findContextFiles, withContextFiles } from '../agent/context-files.js';
import { CliUI, cliSession } from '../extensions/extension-context.js';
import { displayPath, findExtensions, loadExtensions } from '../extensions/load-extensions.js';
import { readMCPConfig, registerMCPTools } from '../extensions/mcp-servers.js';
import { checkedProviderFactory } from '../agent/model-catalog.js';
import { CliError, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError } from '../errors.js';
import { PipedLineInput, TerminalLineInput, type InputStream, type LineInput } from '../ui/line-input.js';
import { chooseProvider, defaultProviderFactory, type ProviderFactory } from '../agent/provider-choice.js';
import { reportTurn, runRepl } from './interactive-mode.js';
import { openSession, type OpenedSession } from '../session/open-session.js';
import { openSwitchableSession } from '../session/switchable-store.js';
import { findSessions, listCommand } from '../session/list-sessions.js';
import { pickSession } from '../session/session-picker.js';
import { loadMarkdownRenderer, wantsMarkdown } from '../ui/markdown.js';
import { historyFileFor, InputHistory } from '../session/input-history.js';
import { replayLines } from '../session/replay.js';
import { pantoHome, sessionDirFor } from '../session/session-dir.js';
import { applySystemPrompt, resolveSystemPrompt } from '../agent/system-prompt.js';
import { Terminal, type OutputStream } from '../ui/terminal.js';
import { createCodingTools } from '../tools/index.js';

/** Everything the CLI touches of the world, so that tests can give it their own. */
export interface CliEnvironment {
  /** The arguments after `node panto`. */
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdin: InputStream;
  stdout: OutputStream & NodeJS.WritableStream;
  stderr: OutputStream & NodeJS.WritableStream;
  /** The user's home folder (default `os.homedir()`). */
  homedir?: string;
  /** Builds providers (default: `createProvider` of @panto/core). */
  providerFactory?: ProviderFactory;
  /**
   * Subscribes to Ctrl-C and returns the unsubscribe; default: the process's SIGINT. The
   * handler is called once per Ctrl-C and never throws.
   */
  onInterrupt?: (handler: () => void) => () => void;
  /** Leaves at once, on a second Ctrl-C while an abort is under way. Default: exit 130. */
  forceExit?: () => void;
  /** Where interactive lines come from (default: the terminal, or piped stdin). */
  lineInput?: LineInput;
  /** Asks the user before bash/write/edit run (default: on the terminal, when stdin is one). */
  askApproval?: AskApproval;
}

export const VERSION = readVersion();

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
  const { env, stdout, stderr } = environment;
  const terminal = new Terminal(stdout, stderr, env);
  let unsubscribe: (() => void) | undefined;
  let detachExtensions: (() => void) | undefined;
  let mcp: MCPServers | undefined;
  try {
    const options = parseArgs(environment.argv);
    if (options.help) {
      stdout.write(`${HELP}\n`);
      return EXIT_OK;
    }
    if (options.version) {
      stdout.write(`panto ${VERSION}\n`);
      return EXIT_OK;
    }
    const cwd = resolve(environment.cwd);
    const sessionDir = options.sessionDir ? resolve(cwd, options.sessionDir) : sessionDirFor(cwd, env, environment.homedir);
    const sessionsRoot = join(pantoHome(env, cwd, environment.homedir), 'sessions');
    if (options.list) return await listCommand({ sessionDir, sessionsRoot, all: options.all, cwd, terminal });
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

    const contextFiles = await findContextFiles({ cwd, pantoHome: pantoHome(env, cwd, environment.homedir) });
    for (const problem of contextFiles.problems) terminal.warn(`panto: ${problem}`);
    const systemPrompt = withContextFiles(await resolveSystemPrompt(options.system, cwd), contextFiles.files);
    const printPrompt = options.print === undefined ? undefined : await promptOf(options.print, environment.stdin);

    // Construction order (seed-plan, phase 4): store → tool registry → agent (resumed from
    // the store, or new) → system prompt reconciled (resumed) or seeded with the first
    // prompt (new: so a run without one leaves no session) → tools registered →
    // extensions loaded into the registry → MCP servers' tools, as they connect.
    let resume = options.resume;
    if (options.pick) {
      resume = await pickResume(sessionDir, environment, terminal);
      if (resume === undefined) return EXIT_OK;
    }
    const session = await openSwitchableSession(
      {
        continue: options.continue,
        noSession: options.noSession,
        fork: options.fork,
        ...(resume === undefined ? {} : { resume }),
      },
      (request) => openSession(request, { cwd, sessionDir, sessionsRoot }),
    );
    if (session.notice) terminal.note(session.notice);
    const tools = new ToolRegistry();
    const extensions = new ExtensionHost({
      tools,
      reservedCommands: BUILT_IN_COMMANDS,
      onError: (failure) => terminal.warn(`panto: extension ${failure.source.path}: ${failure.where} failed: ${failure.error.message}`),
    });
    const providerFactory = environment.providerFactory ?? checkedProviderFactory(env, defaultProviderFactory);
    const settings = chooseProvider(options, env, session.activeModel);
    const provider = providerFactory(settings);
    let app: App | undefined;
    const interactive = printPrompt === undefined && (environment.lineInput?.interactive ?? environment.stdin.isTTY === true);
    const approvals = new Approvals(
      options.yolo
        ? { type: 'yolo' }
        : printPrompt !== undefined
          ? { type: 'refuse', where: 'panto -p' }
          : interactive
            ? {
                type: 'ask',
                ask: environment.askApproval ?? terminalApproval(environment.stdin, terminal, () => app?.interrupt()),
              }
            : { type: 'refuse', where: 'panto with piped input' },
    );
    const config = {
      provider,
      tools,
      beforeToolCall: chainToolGuards(extensions.beforeToolCall, approvals.beforeToolCall),
    };
    let agent: Agent;
    let danglingUser: string | null = null;
    if (session.resumed) {
      ({ agent, danglingUser } = await Agent.resume(session.store, config));
      await applySystemPrompt(agent, systemPrompt, true);
    } else {
      agent = new Agent(config, { store: session.store });
    }
    for (const tool of createCodingTools({ cwd, bash: { env } })) tools.register(tool);

    const home = environment.homedir ?? osHomedir();
    const dataDir = pantoHome(env, cwd, environment.homedir);
    const show = (path: string) => displayPath(path, cwd, home);
    const places = {
      extensionDirs: [join(dataDir, 'extensions'), join(cwd, '.panto', 'extensions')],
      mcpFiles: [join(dataDir, 'mcp.json'), join(cwd, '.panto', 'mcp.json')],
    };
    mcp = await startMCP(places, { env, cwd, terminal, show });
    const mcpServers = mcp;
    const reported = new Set<string>();

    app = new App({
      agent,
      terminal,
      cwd,
      providerChoice: settings,
      providerFactory,
      sessionFile: session.sessionFile,
      ...(session.resumed ? {} : { beforeFirstTurn: () => applySystemPrompt(agent, systemPrompt, false) }),
      unsavedReason: options.noSession ? 'not saved: --no-session' : 'it is created with the first prompt',
      forceExit: environment.forceExit ?? (() => process.exit(EXIT_INTERRUPTED)),
      extensions,
      contextFiles: contextFiles.files.map((file) => file.path),
      env,
      exportsDir: join(pantoHome(env, cwd, environment.homedir), 'exports'),
      places: {
        extensionDirs: places.extensionDirs.map(show),
        mcpFiles: places.mcpFiles.map(show),
      } satisfies LookupPlaces,
      ...(mcpServers === undefined
        ? {}
        : {
            mcp: mcpServers,
            beforeTurn: async () => {
              if (mcpServers.info().some((server) => server.status === 'connecting')) terminal.spin('starting MCP servers…');
              await registerMCPTools(mcpServers, tools, (message) => terminal.warn(`panto: ${message}`), reported);
              terminal.stopSpinner();
            },
          }),
    });
    const running = app;
    unsubscribe = (environment.onInterrupt ?? onProcessInterrupt)(() => running.interrupt());

    const ui = new CliUI(terminal);
    const context: ExtensionContext = {
      agent: extensionAgent(agent, async (text) => {
        const result = await running.turn(text, 'stream');
        reportTurn(running, result);
        return result;
      }),
      session: cliSession(session.store, session.sessionFile),
      ui,
    };
    await loadExtensions(
      extensions,
      await findExtensions({
        globalDir: places.extensionDirs[0]!,
        projectDir: places.extensionDirs[1]!,
        flags: options.extensions,
        cwd,
        home,
      }),
    );
    for (const record of extensions.records) {
      if (record.status !== 'failed') continue;
      terminal.error(`panto: extension ${record.source.path} failed to load: ${record.error.message}`);
      if (env.PANTO_DEBUG === '1' && record.error.stack) terminal.note(record.error.stack);
    }
    detachExtensions = extensions.attach(agent, context);

    if (provider.name === 'offline') {
      terminal.warn(
        options.provider === 'offline' || env.PANTO_PROVIDER === 'offline'
          ? 'panto: using the offline provider: answers are canned, no model is called'
          : 'panto: no ANTHROPIC_API_KEY or OPENAI_API_KEY set, so using the offline provider: answers are canned, no model is called',
      );
    }
    const previous = session.activeModel;
    if (previous && (previous.provider !== provider.name || previous.model !== provider.model)) {
      terminal.note(`this session last used ${previous.provider}/${previous.model}; now using ${provider.name}/${provider.model}`);
    }

    if (printPrompt !== undefined) return await printTurn(app, printPrompt, danglingUser, markdownReady);

    const input =
      environment.lineInput ??
      (environment.stdin.isTTY
        ? // With stdout redirected to a file, the prompt and the echo belong on the terminal.
          new TerminalLineInput(
            environment.stdin,
            stdout.isTTY ? stdout : stderr,
            await InputHistory.load(historyFileFor(dataDir, cwd), (error) => terminal.warn(`panto: input history: ${error.message}`)),
          )
        : new PipedLineInput(environment.stdin));
    ui.useInput(input);
    terminal.note(banner(app, session, options));
    if (session.resumed) for (const line of replayLines(agent.conversation.messages)) terminal.note(line);
    return await runRepl(app, input, danglingUser);
  } catch (error) {
    return reportError(error, terminal, env);
  } finally {
    terminal.stopSpinner();
    unsubscribe?.();
    detachExtensions?.();
    await mcp?.close();
  }
}

/** `panto -r` without an id: the file of the session picked, or undefined when the user cancelled. */
async function pickResume(sessionDir: string, environment: CliEnvironment, terminal: Terminal): Promise<string | undefined> {
  if (environment.stdin.isTTY !== true) {
    throw new UsageError('--resume without a session id opens a picker, which needs a terminal: give the id (panto --list shows them)');
  }
  const sessions = await findSessions({ dir: sessionDir });
  if (sessions.length === 0)
    throw new CliError(`no sessions to resume in ${sessionDir} (sessions belong to the folder panto was started in; panto --list --all shows every folder's)`);
  const output = environment.stdout.isTTY ? environment.stdout : environment.stderr;
  const chosen = await pickSession(sessions, environment.stdin, output);
  if (chosen === undefined) terminal.note('nothing resumed');
  return chosen?.file;
}

/**
 * The MCP servers of `$PANTO_HOME/mcp.json` and `.panto/mcp.json`, connecting in the
 * background from now on (the first turn waits for those still starting); undefined when
 * none is configured. Config problems and servers that fail are warnings, never fatal.
 */
async function startMCP(
  places: { mcpFiles: string[] },
  options: {
    env: Readonly<Record<string, string | undefined>>;
    cwd: string;
    terminal: Terminal;
    show: (path: string) => string;
  },
): Promise<MCPServers | undefined> {
  const { terminal } = options;
  const config = await readMCPConfig({ global: places.mcpFiles[0]!, project: places.mcpFiles[1]! }, options.env, options.show);
  for (const problem of config.problems) terminal.warn(`panto: ${problem}`);
  if (config.servers.length === 0) return undefined;
  const mcp = new MCPServers(config.servers, {
    // Loaded on first use: a run with no server configured never loads the SDK.
    sdk: () => import('@panto/core/mcp/sdk'),
    cwd: options.cwd,
    clientInfo: { name: 'panto', version: VERSION },
    onNotice: (notice) => terminal.warn(`panto: ${notice.message}`),
  });
  void mcp.connect();
  return mcp;
}

async function printTurn(app: App, prompt: string, danglingUser: string | null, markdownReady: Promise<void>): Promise<number> {
  const { terminal } = app;
  if (danglingUser !== null) {
    terminal.warn('note: the last prompt of this session was never answered; it is not resent');
  }
  const result = await app.turn(prompt, 'print');
  // The answer first, then the usage line (and any warning): on a terminal, where both show,
  // it reads as an interactive turn does.
  if (result.stopReason !== 'aborted' && result.stopReason !== 'error') {
    const answer = finalAnswer(result);
    await markdownReady;
    const shown = answer === '' || terminal.renderMarkdown === undefined ? answer : `${terminal.renderMarkdown(answer).trimEnd()}\n`;
    if (shown !== '') terminal.text(shown.endsWith('\n') ? shown : `${shown}\n`);
  }
  const ok = reportTurn(app, result);
  if (result.stopReason === 'aborted') return EXIT_INTERRUPTED;
  if (!ok) return EXIT_FAILURE;
  return result.incomplete ? EXIT_FAILURE : EXIT_OK;
}

/** The text of the step's last assistant message: the answer, without what came before tool calls. */
function finalAnswer(result: StepResult): string {
  for (let i = result.messages.length - 1; i >= 0; i--) {
    const message = result.messages[i]!;
    if (message.role === 'assistant') return assistantText(message);
  }
  return '';
}

function banner(app: App, session: OpenedSession, options: CliOptions): string {
  const id = app.agent.sessionStore.sessionId();
  const where = session.resumed ? `resumed ${id} (${app.agent.conversation.length} messages)` : `new session ${id}${options.noSession ? ' (not saved)' : ''}`;
  return `panto ${VERSION} · ${describeSettings(app.providerChoice())} · ${where} · /help for commands`;
}

async function promptOf(value: string, stdin: InputStream): Promise<string> {
  if (value !== '-') return value;
  if (stdin.isTTY === true) throw new UsageError("--print needs a prompt: panto -p 'PROMPT', or pipe one in (git diff | panto -p)");
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const text = Buffer.concat(chunks).toString('utf8').trimEnd();
  if (text.trim() === '') throw new UsageError('--print -: the prompt read from stdin is empty');
  return text;
}

function reportError(error: unknown, terminal: Terminal, env: Readonly<Record<string, string | undefined>>): number {
  const usage = error instanceof UsageError || error instanceof InvalidSessionIdError;
  const message = error instanceof Error ? error.message : String(error);
  terminal.error(`panto: ${message}`);
  if (usage) terminal.note(USAGE);
  if (env.PANTO_DEBUG === '1' && error instanceof Error && error.stack) terminal.note(error.stack);
  else if (!usage && !(error instanceof PantoError) && !(error instanceof CliError)) {
    terminal.note('(set PANTO_DEBUG=1 for details)');
  }
  return usage ? EXIT_USAGE : EXIT_FAILURE;
}

function onProcessInterrupt(handler: () => void): () => void {
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

function readVersion(): string {
  try {
    const json = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof json.version === 'string' ? json.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
