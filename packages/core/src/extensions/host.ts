import type { Agent } from '../agent/agent.js';
import { ExtensionError, toError } from '../errors.js';
import type { AgentEvent } from '../agent/events.js';
import {
  EXTENSION_EVENT_NAMES,
  type BeforeToolCallHandler,
  type ExtensionAgent,
  type ExtensionAPI,
  type ExtensionCommand,
  type ExtensionContext,
} from './api.js';
import type { ToolCallBlock } from '../messages.js';
import type { BeforeToolCall, Tool, ToolCallDecision, ToolContext, ToolRegistry } from '../tool.js';

/** Where an extension came from, as the host tells the user. */
export interface ExtensionSource {
  /** Its file (or whatever names it), as the user would write it. */
  readonly path: string;
  /** Where the host found it, in the host's words: `~/.panto/extensions`, `--extension`, … */
  readonly origin: string;
}

/** What became of one extension. */
export type ExtensionRecord =
  | {
      status: 'loaded';
      source: ExtensionSource;
      tools: readonly string[];
      commands: readonly string[];
      /** The events it handles, `before-tool-call` included. */
      events: readonly string[];
    }
  | { status: 'failed'; source: ExtensionSource; error: Error };

/** A handler of a loaded extension that failed while the agent ran. */
export interface ExtensionFailure {
  source: ExtensionSource;
  /** What failed: `on('step-end')`, `on('before-tool-call')`. */
  where: string;
  error: Error;
}

/** An extension's command, as the host lists and runs it. */
export interface RegisteredCommand extends ExtensionCommand {
  readonly name: string;
  readonly source: ExtensionSource;
}

export interface ExtensionHostOptions {
  /**
   * The registry extensions' tools go into — the agent's. Register the host's own tools
   * first: an extension that wants a taken name fails to load.
   */
  tools: ToolRegistry;
  /** The host's own command names (`help`, `quit`, …), which extensions cannot take. */
  reservedCommands?: Iterable<string>;
  /** Where a failing handler is reported. Must not throw. Default: nowhere. */
  onError?: (failure: ExtensionFailure) => void;
  /** How long an extension's default export may take to return (default 10 s); a slower one fails to load. */
  loadTimeoutMs?: number;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const COMMAND_NAME = /^[a-z][a-z0-9-]*$/;
const EVENT_NAMES: ReadonlySet<string> = new Set(EXTENSION_EVENT_NAMES);

interface Registration {
  tools: Tool[];
  commands: RegisteredCommand[];
  handlers: { event: string; handler: (...args: never[]) => unknown }[];
}

interface Handler {
  source: ExtensionSource;
  event: string;
  handler: (...args: never[]) => unknown;
}

/**
 * Loads extensions into an agent, the same way in every host: their tools into the agent's
 * registry, their commands into a table the host runs, their handlers onto the agent's
 * events and its `beforeToolCall` hook. An extension that fails to load leaves nothing
 * behind, and a handler that throws is reported, never fatal.
 *
 * Construction order (as the CLI does it): registry → host → agent with
 * `beforeToolCall: host.beforeToolCall` → the host's own tools → `load` each extension →
 * `attach` the agent.
 *
 * @example
 * const tools = new ToolRegistry();
 * const host = new ExtensionHost({ tools, onError: (f) => console.error(f.source.path, f.error) });
 * const agent = new Agent({ provider, tools, beforeToolCall: host.beforeToolCall }, { store });
 * await host.load({ path: 'my-ext.ts', origin: 'example' }, await import('../my-ext.js'));
 * host.attach(agent, { agent: extensionAgent(agent), session, ui: headlessUI() });
 */
export class ExtensionHost {
  readonly #tools: ToolRegistry;
  readonly #reserved: ReadonlySet<string>;
  readonly #onError: (failure: ExtensionFailure) => void;
  readonly #loadTimeoutMs: number;
  readonly #records: ExtensionRecord[] = [];
  readonly #commands = new Map<string, RegisteredCommand>();
  readonly #handlers: Handler[] = [];
  #context: ExtensionContext | undefined;

  constructor(options: ExtensionHostOptions) {
    this.#tools = options.tools;
    this.#reserved = new Set(options.reservedCommands ?? []);
    this.#loadTimeoutMs = options.loadTimeoutMs ?? 10_000;
    const onError = options.onError;
    this.#onError = (failure) => {
      try {
        onError?.(failure);
      } catch {
        // A reporter must not throw; if it does, the agent goes on regardless.
      }
    };
  }

  /** Every extension loaded or failed, in order. */
  get records(): readonly ExtensionRecord[] {
    return this.#records;
  }

  /** The extensions' commands, in load order. */
  commands(): readonly RegisteredCommand[] {
    return [...this.#commands.values()];
  }

  command(name: string): RegisteredCommand | undefined {
    return this.#commands.get(name);
  }

  /**
   * Runs a module's default export with the API. What it registers takes effect only if it
   * returns without throwing, within the load timeout, and every name is free; otherwise
   * nothing of it does. Never rejects: the record says how it went.
   *
   * @param exports the module namespace (`await import(file)`), whose `default` is the extension
   */
  async load(source: ExtensionSource, exports: unknown): Promise<ExtensionRecord> {
    const extension = typeof exports === 'object' && exports !== null && 'default' in exports ? exports.default : undefined;
    if (typeof extension !== 'function') {
      return this.fail(source, new ExtensionError('its default export is not a function (export default (panto) => { … })'));
    }
    const staged: Registration = { tools: [], commands: [], handlers: [] };
    let open = true;
    const api = this.#api(source, staged, () => open);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new ExtensionError(`it did not finish loading within ${this.#loadTimeoutMs} ms`)), this.#loadTimeoutMs);
      });
      await Promise.race([Promise.resolve().then(() => (extension as (api: ExtensionAPI) => unknown)(api)), timeout]);
      open = false;
      this.#commit(source, staged);
    } catch (error) {
      open = false;
      return this.fail(source, error);
    } finally {
      clearTimeout(timer);
    }
    const record: ExtensionRecord = {
      status: 'loaded',
      source,
      tools: staged.tools.map((tool) => tool.name),
      commands: staged.commands.map((command) => command.name),
      events: [...new Set(staged.handlers.map((handler) => handler.event))],
    };
    this.#records.push(record);
    return record;
  }

  /** Records an extension the host could not even import (a syntax error, a missing file). */
  fail(source: ExtensionSource, error: unknown): ExtensionRecord {
    const record: ExtensionRecord = { status: 'failed', source, error: toError(error) };
    this.#records.push(record);
    return record;
  }

  /**
   * Runs an extension's command with the context given to `attach`. Rejects with what the
   * handler threw (the host reports it), or an `ExtensionError` for an unknown command.
   */
  async runCommand(name: string, args: string): Promise<void> {
    const command = this.#commands.get(name);
    if (command === undefined) throw new ExtensionError(`no extension command /${name}`);
    await command.handler(args, this.#requireContext());
  }

  /**
   * Connects the extensions to `agent`: their event handlers see its events, and their
   * handlers and commands get `context`. Returns the disconnect.
   */
  attach(agent: Agent, context: ExtensionContext): () => void {
    this.#context = context;
    const unsubscribe = agent.subscribe((event) => this.#dispatch(event, context));
    return () => {
      unsubscribe();
      if (this.#context === context) this.#context = undefined;
    };
  }

  /**
   * The agent's `beforeToolCall` hook (pass it in `AgentConfig`): asks every extension's
   * `before-tool-call` handlers in load order; the first refusal wins. A handler that
   * throws, or answers something that is not a decision, refuses the call and is reported.
   */
  readonly beforeToolCall: BeforeToolCall = async (call: ToolCallBlock, toolContext: ToolContext): Promise<ToolCallDecision | undefined> => {
    const guards = this.#handlers.filter((handler) => handler.event === 'before-tool-call');
    if (guards.length === 0) return undefined;
    const context = { ...this.#requireContext(), signal: toolContext.signal };
    for (const guard of guards) {
      let decision: unknown;
      try {
        decision = await (guard.handler as BeforeToolCallHandler)(call, context);
      } catch (error) {
        this.#onError({ source: guard.source, where: "on('before-tool-call')", error: toError(error) });
        return {
          type: 'refuse',
          reason: `the extension ${guard.source.path} could not check it: ${toError(error).message}`,
        };
      }
      if (decision === undefined || decision === null) continue;
      if (isDecision(decision)) {
        if (decision.type === 'refuse') return decision;
        continue;
      }
      const error = new ExtensionError(`before-tool-call answered ${JSON.stringify(decision)}, not { type: 'allow' } or { type: 'refuse', reason }`);
      this.#onError({ source: guard.source, where: "on('before-tool-call')", error });
      return { type: 'refuse', reason: `the extension ${guard.source.path} gave no valid decision` };
    }
    return undefined;
  };

  #api(source: ExtensionSource, staged: Registration, isOpen: () => boolean): ExtensionAPI {
    const check = (what: string): void => {
      if (!isOpen()) throw new ExtensionError(`${what} called after the extension finished loading; register everything while it loads`);
    };
    return {
      registerTool: (tool: Tool) => {
        check('registerTool');
        checkTool(tool);
        if (staged.tools.some((other) => other.name === tool.name)) throw new ExtensionError(`it registers the tool ${tool.name} twice`);
        staged.tools.push(tool);
      },
      registerCommand: (name: string, command: ExtensionCommand) => {
        check('registerCommand');
        if (typeof name !== 'string' || !COMMAND_NAME.test(name)) {
          throw new ExtensionError(`command name ${JSON.stringify(name)}: use lowercase letters, digits and -, starting with a letter`);
        }
        if (typeof command !== 'object' || command === null || typeof command.handler !== 'function') {
          throw new ExtensionError(`command /${name} needs a handler function`);
        }
        if (typeof command.description !== 'string') throw new ExtensionError(`command /${name} needs a description`);
        if (staged.commands.some((other) => other.name === name)) throw new ExtensionError(`it registers the command /${name} twice`);
        staged.commands.push({
          name,
          description: command.description,
          handler: command.handler.bind(command),
          source,
        });
      },
      on: (event: string, handler: (...args: never[]) => unknown) => {
        check('on');
        if (!EVENT_NAMES.has(event)) throw new ExtensionError(`unknown event ${JSON.stringify(event)} (known: ${EXTENSION_EVENT_NAMES.join(', ')})`);
        if (typeof handler !== 'function') throw new ExtensionError(`the handler of ${event} is not a function`);
        staged.handlers.push({ event, handler });
      },
    };
  }

  /** Checks every name against what is taken, then registers all of it — or nothing. */
  #commit(source: ExtensionSource, staged: Registration): void {
    for (const tool of staged.tools) {
      if (this.#tools.get(tool.name) !== undefined) throw new ExtensionError(`the tool name ${tool.name} is taken`);
    }
    for (const command of staged.commands) {
      const owner = this.#commands.get(command.name);
      if (this.#reserved.has(command.name)) throw new ExtensionError(`/${command.name} is a built-in command`);
      if (owner !== undefined) throw new ExtensionError(`/${command.name} is taken by ${owner.source.path}`);
    }
    for (const tool of staged.tools) this.#tools.register(tool);
    for (const command of staged.commands) this.#commands.set(command.name, command);
    for (const { event, handler } of staged.handlers) this.#handlers.push({ source, event, handler });
  }

  #dispatch(event: AgentEvent, context: ExtensionContext): void {
    for (const { source, event: name, handler } of this.#handlers) {
      if (name !== event.type) continue;
      const report = (error: unknown) => this.#onError({ source, where: `on('${name}')`, error: toError(error) });
      try {
        const result = (handler as (event: AgentEvent, context: ExtensionContext) => unknown)(event, context);
        if (isPromiseLike(result)) result.then(undefined, report);
      } catch (error) {
        report(error);
      }
    }
  }

  #requireContext(): ExtensionContext {
    if (this.#context === undefined) throw new ExtensionError('the extension host is not attached to an agent');
    return this.#context;
  }
}

/**
 * The agent as extensions see it. `runTurn` defaults to submitting the prompt and running
 * the step with no receiver; a host that shows turns passes its own.
 */
export function extensionAgent(agent: Agent, runTurn?: ExtensionAgent['runTurn']): ExtensionAgent {
  return {
    get conversation() {
      return agent.conversation;
    },
    get model() {
      return { provider: agent.provider.name, model: agent.provider.model };
    },
    runTurn:
      runTurn ??
      (async (text) => {
        await agent.submitUserMessage(text);
        return agent.runStep();
      }),
    addSystemMessage: (text, mode) => agent.addSystemMessage(text, mode),
    compact: (instructions) => agent.compact(instructions),
  };
}

function checkTool(tool: unknown): asserts tool is Tool {
  if (typeof tool !== 'object' || tool === null) throw new ExtensionError('registerTool needs a tool object');
  const candidate = tool as { [key: string]: unknown };
  const name = candidate.name;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new ExtensionError(`tool name ${JSON.stringify(name)}: model APIs accept [a-zA-Z0-9_-], 1 to 64 characters`);
  }
  if (name.startsWith('mcp__')) throw new ExtensionError(`tool name ${name}: names starting with mcp__ are for MCP servers' tools`);
  if (typeof candidate.description !== 'string') throw new ExtensionError(`tool ${name} needs a description`);
  const schema = candidate.input_schema;
  if (typeof schema !== 'object' || schema === null || (schema as { type?: unknown }).type !== 'object') {
    throw new ExtensionError(`tool ${name} needs an input_schema of { type: 'object', … }`);
  }
  if (typeof candidate.execute !== 'function') throw new ExtensionError(`tool ${name} needs an execute function`);
}

function isDecision(value: unknown): value is ToolCallDecision {
  if (typeof value !== 'object' || value === null) return false;
  const decision = value as { type?: unknown; reason?: unknown };
  return decision.type === 'allow' || (decision.type === 'refuse' && typeof decision.reason === 'string');
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
