import { AbortedError, ExtensionHost, type Agent, type Receiver, type StepResult } from '@panto/core';
import type { MCPServers } from '@panto/core/mcp';
import type { Checkpoints } from '../checkpoints/checkpoints.js';
import type { CommandContext, LookupPlaces } from '../commands/command-context.js';
import type { ProviderFactory, ProviderChoice } from '../agent/provider-choice.js';
import { providerErrorHint } from '../agent/provider-hints.js';
import { CliError } from '../errors.js';
import type { CommandSandbox } from '../sandbox/policy.js';
import type { FolderTrust } from '../trust/folder-trust.js';
import { createTurnReceiver, type RenderMode } from '../ui/render-turn.js';
import type { Terminal } from '../ui/terminal.js';

/** A turn's result, with the entry id of its prompt (what `--rewind` and `prompt_id` name). */
export interface TurnResult extends StepResult {
  promptId: string;
}

/** Options of one {@link RunningAgent.turn}. */
export interface TurnOptions {
  /** Gets the turn's events too, once its prompt is stored (`--output-format stream-json`, an ACP client). */
  observe?: (promptId: string) => Receiver;
  /** Aborts the step as Ctrl-C does (an ACP `session/cancel`, a stream-json interrupt); what was committed stays. */
  signal?: AbortSignal;
}

export interface RunningAgentOptions {
  agent: Agent;
  terminal: Terminal;
  cwd: string;
  providerChoice: ProviderChoice;
  providerFactory: ProviderFactory;
  sessionFile: () => string | undefined;
  unsavedReason: string | undefined;
  /** Called on a second Ctrl-C while an abort is still under way. */
  forceExit: () => void;
  /** Runs once, before the first prompt is submitted (a new session seeds its system prompt here). */
  beforeFirstTurn?: () => Promise<unknown>;
  /** Runs before each prompt is submitted (MCP servers that connected since the last turn get their tools registered). Must not throw. */
  beforeTurn?: () => Promise<void>;
  /** The loaded extensions (none when absent). */
  extensions?: ExtensionHost;
  /** The MCP servers, when any is configured. */
  mcp?: MCPServers;
  /** The working folder's trust (`/trust`). */
  trust?: FolderTrust;
  /** The sandbox bash commands run in; none: they run without one. */
  sandbox?: CommandSandbox;
  /** Where extensions and MCP configs are looked for, to say so when there are none. */
  places?: LookupPlaces;
  /** The AGENTS.md files in the system prompt (absolute paths). */
  contextFiles?: readonly string[];
  /** The environment, to tell which providers have keys (`/model`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where `/export` writes by default (`$PANTO_HOME/exports`). */
  exportsDir?: string;
  /** The checkpoints of the working folder's files, taken around each turn (`/rewind`). */
  checkpoints?: Checkpoints;
}

/**
 * A running agent and what the user sees of it — what both modes (`-p` and interactive) drive
 * and what commands work on: runs turns and commands, switches the provider, and turns Ctrl-C
 * into an abort of whatever is running.
 */
export class RunningAgent implements CommandContext {
  readonly agent: Agent;
  readonly terminal: Terminal;
  readonly cwd: string;
  readonly sessionFile: () => string | undefined;
  readonly unsavedReason: string | undefined;
  readonly extensions: ExtensionHost;
  readonly mcp: MCPServers | undefined;
  readonly trust: FolderTrust | undefined;
  readonly sandbox: CommandSandbox | undefined;
  readonly places: LookupPlaces;
  readonly contextFiles: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly exportsDir: string | undefined;
  readonly #beforeTurn: (() => Promise<void>) | undefined;
  readonly checkpoints: Checkpoints | undefined;
  readonly #providerFactory: ProviderFactory;
  readonly #forceExit: () => void;
  #beforeFirstTurn: (() => Promise<unknown>) | undefined;
  #choice: ProviderChoice;
  #running: AbortController | undefined;
  /** What Ctrl-C does when nothing runs (the REPL ends its input). */
  onIdleInterrupt: (() => void) | undefined;

  constructor(options: RunningAgentOptions) {
    this.agent = options.agent;
    this.terminal = options.terminal;
    this.cwd = options.cwd;
    this.sessionFile = options.sessionFile;
    this.unsavedReason = options.unsavedReason;
    this.extensions = options.extensions ?? new ExtensionHost({ tools: options.agent.tools });
    this.mcp = options.mcp;
    this.trust = options.trust;
    this.sandbox = options.sandbox;
    this.places = options.places ?? { extensionDirs: [], mcpFiles: [] };
    this.contextFiles = options.contextFiles ?? [];
    this.env = options.env ?? {};
    this.exportsDir = options.exportsDir;
    this.#beforeTurn = options.beforeTurn;
    this.checkpoints = options.checkpoints;
    this.#providerFactory = options.providerFactory;
    this.#forceExit = options.forceExit;
    this.#beforeFirstTurn = options.beforeFirstTurn;
    this.#choice = { ...options.providerChoice, model: options.agent.provider.model };
  }

  providerChoice(): ProviderChoice {
    return this.#choice;
  }

  switchProvider(settings: ProviderChoice): void {
    const provider = this.#providerFactory(settings);
    this.agent.provider = provider;
    this.#choice = { ...settings, model: provider.model };
  }

  /**
   * Submits a prompt (persisted before any provider call) and runs the step. Ctrl-C aborts
   * it; what was committed stays. A store failure is thrown; a provider failure is in the
   * result.
   */
  async turn(text: string, mode: RenderMode, options: TurnOptions = {}): Promise<TurnResult> {
    const prepare = this.#beforeFirstTurn;
    if (prepare !== undefined) {
      await prepare();
      this.#beforeFirstTurn = undefined;
    }
    await this.#beforeTurn?.();
    const prompt = await this.agent.submitUserMessage(text);
    const promptId = prompt.id;
    await this.checkpoints?.beforePrompt(promptId, text);
    const render = createTurnReceiver(this.terminal, mode);
    const observer = options.observe?.(promptId);
    const receiver: Receiver =
      observer === undefined
        ? render
        : (event) => {
            render(event);
            observer(event);
          };
    try {
      const result = await this.interruptible((signal) => this.agent.runStep(receiver, { signal }), options.signal);
      return { ...result, ...this.#explained(result.error), promptId };
    } finally {
      this.terminal.stopSpinner();
      await this.checkpoints?.afterTurn(promptId);
    }
  }

  /** A provider failure with what to check appended (the URL and where it came from, the key's variable); the original is its cause. */
  #explained(error: Error | undefined): { error?: Error } {
    const hint = providerErrorHint(error, this.#choice, this.env);
    return error === undefined || hint === undefined ? {} : { error: new CliError(`${error.message} — ${hint}`, { cause: error }) };
  }

  /** Runs `task` with a signal that Ctrl-C ({@link interrupt}) aborts, and so does `external`. */
  async interruptible<T>(task: (signal: AbortSignal) => Promise<T>, external?: AbortSignal): Promise<T> {
    const controller = new AbortController();
    const forward = () => controller.abort(external?.reason);
    if (external?.aborted) forward();
    else external?.addEventListener('abort', forward, { once: true });
    this.#running = controller;
    try {
      return await task(controller.signal);
    } finally {
      this.#running = undefined;
      external?.removeEventListener('abort', forward);
    }
  }

  /** Ctrl-C: aborts what runs; a second one while the abort is under way exits; when idle, `onIdleInterrupt`. */
  interrupt(): void {
    const running = this.#running;
    if (running === undefined) {
      if (this.onIdleInterrupt) this.onIdleInterrupt();
      else this.#forceExit();
      return;
    }
    if (running.signal.aborted) {
      this.#forceExit();
      return;
    }
    this.terminal.stopSpinner();
    running.abort(new AbortedError('interrupted by Ctrl-C'));
  }
}
