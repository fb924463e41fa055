/**
 * Starting the agent of a run, in the construction order of seed-plan phase 4: store →
 * tool registry → agent (resumed from the store, or new) → system prompt reconciled
 * (resumed) or seeded with the first prompt (new: so a run without one leaves no session) →
 * tools registered (bash in the sandbox) → the folder's trust decided → extensions loaded
 * into the registry → MCP servers' tools, as they connect.
 */
import { Agent, ExtensionHost, extensionAgent, ToolRegistry, type AgentConfig, type BeforeToolCall, type Provider } from '@panto/core';
import type { MCPServers } from '@panto/core/mcp';
import { join } from 'node:path';
import { chainToolGuards } from '../agent/approvals.js';
import { checkedProviderFactory } from '../agent/model-catalog.js';
import { chooseProvider, defaultProviderFactory } from '../agent/provider-choice.js';
import { applySystemPrompt } from '../agent/system-prompt.js';
import { Checkpoints } from '../checkpoints/checkpoints.js';
import { BUILT_IN_COMMANDS } from '../commands/slash-commands.js';
import { EXIT_INTERRUPTED } from '../errors.js';
import { CliUI, cliSession } from '../extensions/extension-context.js';
import { findExtensions, loadExtensions } from '../extensions/load-extensions.js';
import { mcpBeforeTurn, startMCP } from '../extensions/mcp-servers.js';
import type { SwitchableSession } from '../session/switchable-store.js';
import { createCodingTools } from '../tools/index.js';
import { reportTurn } from '../ui/render-turn.js';
import { displayPath } from '../user-paths.js';
import type { AgentStart } from './agent-start.js';
import { RunningAgent } from './running-agent.js';
import { codePlaces, decideFolderTrust, startGuardedTools } from './start-safety.js';

/** What a run must release on the way out, whatever happened: set as each is acquired. */
export interface HeldResources {
  /** Stops listening for Ctrl-C. */
  unsubscribe?: () => void;
  /** Detaches the extensions from the agent. */
  detachExtensions?: () => void;
  /** The MCP servers, to close. */
  mcp?: MCPServers;
  /** The sandbox's domain proxy, to stop. */
  sandbox?: { close(): Promise<void> };
}

/** Releases what a run held (each once; what was never acquired is skipped). */
export async function releaseHeld(held: HeldResources): Promise<void> {
  held.unsubscribe?.();
  held.detachExtensions?.();
  await held.mcp?.close();
  await held.sandbox?.close();
}

/** The agent of a run, started. */
export interface StartedAgent {
  running: RunningAgent;
  /** The resumed session's last prompt, when it was never answered. */
  danglingUser: string | null;
  /** The extensions' UI: it asks its questions on the interactive input, once there is one. */
  ui: CliUI;
}

export type { AgentStart } from './agent-start.js';

/** Starts the agent of a run; what has to be released is put in `held` as it is acquired. */
export async function startAgent(start: AgentStart, held: HeldResources): Promise<StartedAgent> {
  const { environment, places, terminal, session } = start;
  const { env } = environment;
  const { cwd, home, dataDir } = places;
  const tools = new ToolRegistry();
  const extensions = new ExtensionHost({
    tools,
    reservedCommands: BUILT_IN_COMMANDS,
    onError: (failure) => terminal.warn(`panto: extension ${failure.source.path}: ${failure.where} failed: ${failure.error.message}`),
  });
  const providerFactory = environment.providerFactory ?? checkedProviderFactory(env, defaultProviderFactory);
  const settings = chooseProvider(start.options, env, session.activeModel);
  const provider = providerFactory(settings);
  let running: RunningAgent | undefined;
  const guarded = await startGuardedTools(start, () => running?.interrupt());
  held.sandbox = guarded.started;
  const { sandbox } = guarded.started;
  const client = start.client;
  // The client hears that a call runs once it passed every guard (chainToolGuards stops at a refusal).
  const starting: BeforeToolCall[] = client === undefined ? [] : [async (call) => void (await client.toolStarting(call))];
  const beforeToolCall = chainToolGuards(extensions.beforeToolCall, guarded.approvals.beforeToolCall, ...starting);
  const { agent, danglingUser } = await createAgent(session, { provider, tools, beforeToolCall }, start.systemPrompt, (message) => terminal.warn(message));
  for (const tool of createCodingTools({ cwd, bash: { env, ...(sandbox === undefined ? {} : { sandbox, grants: guarded.grants }) } })) tools.register(tool);

  const show = (path: string) => displayPath(path, cwd, home);
  const code = codePlaces(start);
  const { extensionDirs, mcpFiles } = code;
  // Before anything of the folder's own runs.
  const trust = await decideFolderTrust(start, code);
  const mcp = await startMCP(trust.trusted ? mcpFiles : { global: mcpFiles.global }, { env, cwd, terminal, show, extra: client?.mcpServers ?? [] });
  if (mcp !== undefined) held.mcp = mcp;
  // Not for a session that is not saved: checkpoints go with their session.
  const checkpoints = start.options.noSession
    ? undefined
    : await Checkpoints.start({
        dataDir,
        cwd,
        exclude: [dataDir, places.sessionDir],
        sessionId: () => agent.sessionStore.sessionId(),
        sessionFile: session.sessionFile,
        warn: (message) => terminal.warn(message),
      });
  running = new RunningAgent({
    agent,
    terminal,
    cwd,
    providerChoice: settings,
    providerFactory,
    sessionFile: session.sessionFile,
    ...(session.resumed ? {} : { beforeFirstTurn: () => applySystemPrompt(agent, start.systemPrompt, false) }),
    unsavedReason: start.options.noSession ? 'not saved: --no-session' : 'it is created with the first prompt',
    forceExit: environment.forceExit ?? (() => process.exit(EXIT_INTERRUPTED)),
    extensions,
    trust,
    ...(sandbox === undefined ? {} : { sandbox }),
    contextFiles: start.contextFiles,
    env,
    exportsDir: join(dataDir, 'exports'),
    ...(checkpoints === undefined ? {} : { checkpoints }),
    places: {
      extensionDirs: [extensionDirs.global, extensionDirs.project].map(show),
      mcpFiles: [mcpFiles.global, mcpFiles.project].map(show),
    },
    ...(mcp === undefined ? {} : { mcp, beforeTurn: mcpBeforeTurn(mcp, tools, terminal) }),
  });
  const started = { running, danglingUser, ui: new CliUI(terminal) };
  held.unsubscribe = (environment.onInterrupt ?? onProcessInterrupt)(() => started.running.interrupt());
  held.detachExtensions = await attachExtensions(start, started, extensions, trust.trusted ? extensionDirs : { global: extensionDirs.global });
  noteProvider(start, provider);
  return started;
}

/**
 * The agent: resumed from the session (its system prompt reconciled with `systemPrompt`), or
 * new. A session paused on tool calls that wait for approval (on the service) has them denied
 * first, saying so through `warn`: the CLI cannot put them to whoever was asked, and nothing
 * can follow them undecided.
 */
async function createAgent(
  session: SwitchableSession,
  config: AgentConfig,
  systemPrompt: string,
  warn: (message: string) => void,
): Promise<{ agent: Agent; danglingUser: string | null }> {
  if (!session.resumed) return { agent: new Agent(config, { store: session.store }), danglingUser: null };
  const { agent, danglingUser } = await Agent.resume(session.store, config);
  const waiting = agent.pendingApprovals();
  if (waiting.length > 0) {
    const reason = 'the session was resumed in the panto CLI, which cannot ask for this approval';
    await agent.decideApprovals(waiting.map(({ toolCall }) => ({ tool_call_id: toolCall.id, decision: 'deny', reason })));
    warn(`panto: denied ${waiting.map(({ toolCall }) => toolCall.name).join(', ')}: the session was waiting for approval of it (the model is told)`);
  }
  await applySystemPrompt(agent, systemPrompt, true);
  return { agent, danglingUser };
}

/**
 * Loads the extensions of `$PANTO_HOME/extensions/`, `.panto/extensions/` (when the folder is trusted) and `--extension`,
 * reports those that failed, and attaches the rest to the agent; returns the detach.
 */
async function attachExtensions(
  start: AgentStart,
  started: StartedAgent,
  extensions: ExtensionHost,
  dirs: { global: string; project?: string },
): Promise<() => void> {
  const { running, ui } = started;
  const { agent, terminal } = running;
  const agentOfExtensions = extensionAgent(agent, async (text) => {
    const result = await running.turn(text, 'stream');
    reportTurn(terminal, result);
    return result;
  });
  const session = cliSession(start.session.store, start.session.sessionFile);
  const { cwd, home } = start.places;
  const found = await findExtensions({
    globalDir: dirs.global,
    ...(dirs.project === undefined ? {} : { projectDir: dirs.project }),
    flags: start.options.extensions,
    cwd,
    home,
  });
  await loadExtensions(extensions, found);
  for (const record of extensions.records) {
    if (record.status !== 'failed') continue;
    terminal.error(`panto: extension ${record.source.path} failed to load: ${record.error.message}`);
    if (start.environment.env.PANTO_DEBUG === '1' && record.error.stack) terminal.note(record.error.stack);
  }
  return extensions.attach(agent, { agent: agentOfExtensions, session, ui });
}

/** Says when no model is called (the offline provider), and when the model differs from the one the session last used. */
function noteProvider(start: AgentStart, provider: Provider): void {
  const { terminal, options } = start;
  if (provider.name === 'offline') {
    terminal.warn(
      options.provider === 'offline' || start.environment.env.PANTO_PROVIDER === 'offline'
        ? 'panto: using the offline provider: answers are canned, no model is called'
        : 'panto: no ANTHROPIC_API_KEY or OPENAI_API_KEY set, so using the offline provider: answers are canned, no model is called',
    );
  }
  const previous = start.session.activeModel;
  if (previous && (previous.provider !== provider.name || previous.model !== provider.model)) {
    terminal.note(`this session last used ${previous.provider}/${previous.model}; now using ${provider.name}/${provider.model}`);
  }
}

function onProcessInterrupt(handler: () => void): () => void {
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}
