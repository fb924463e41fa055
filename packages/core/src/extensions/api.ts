/**
 * The extension contract: what an extension module exports and what it is given. Loading
 * modules is the host's business (the CLI imports files); registering what they bring and
 * connecting it to an agent is {@link ExtensionHost}'s, the same for every host.
 */
import type { CompactionResult } from '../agent/agent.js';
import type { Conversation } from '../conversation.js';
import type { AgentEvent, StepResult } from '../agent/events.js';
import type { SystemMode, ToolCallBlock } from '../messages.js';
import type { DiskMessageRecord, SessionEntry } from '../session/records.js';
import type { Tool, ToolCallDecision } from '../tool.js';

/**
 * An extension: the default export of its module. Called once, with the API; what it
 * registers takes effect when it returns (or its promise resolves) without throwing — all
 * of it or, when it fails, none of it.
 *
 * @example
 * import type { Extension } from '@panto/core';
 *
 * const hello: Extension = (panto) => {
 *   panto.registerTool({
 *     name: 'hello',
 *     description: 'Greets someone',
 *     input_schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
 *     execute: async (input) => `Hello, ${String(input.name)}!`,
 *   });
 *   panto.registerCommand('hello', {
 *     description: 'say hello',
 *     handler: (args, context) => context.ui.print(`Hello, ${args || 'you'}!`),
 *   });
 *   panto.on('step-end', (event, context) => context.ui.notify(`turn ended: ${event.result.stopReason}`));
 * };
 * export default hello;
 */
export type Extension = (panto: ExtensionAPI) => void | Promise<void>;

/** What an extension is given to register its tools, commands and handlers. Usable only while it loads. */
export interface ExtensionAPI {
  /**
   * Offers a tool to the model (the `Tool` shape the built-in tools have). Its name must be
   * `[a-zA-Z0-9_-]`, at most 64 characters, not start with `mcp__`, and not be taken.
   */
  registerTool(tool: Tool): void;
  /**
   * Adds `/name` to the host's commands. `name` is lowercase letters, digits and `-`,
   * starting with a letter, and must not be one of the host's own commands.
   */
  registerCommand(name: string, command: ExtensionCommand): void;
  /**
   * Asks to see each tool call before it runs, and to refuse it: a refusal is the call's
   * result, an error the model sees (`Tool call refused: <reason>`).
   */
  on(event: 'before-tool-call', handler: BeforeToolCallHandler): void;
  /**
   * Observes the agent's events: `step-start` / `step-end` (a turn), `tool-execution-start`
   * / `tool-execution-end` (a tool call), `entries-persisted` (messages stored), and the
   * rest of `AgentEvent`.
   */
  on<T extends ExtensionEventName>(event: T, handler: ExtensionEventHandler<T>): void;
}

/** The agent events an extension can observe: every `AgentEvent` type. */
export type ExtensionEventName = AgentEvent['type'];

/**
 * Sees one agent event. Contract: an observer — the agent does not wait for it, and what
 * it throws or rejects with is reported by the host, never allowed to break the turn or
 * what it persists.
 */
export type ExtensionEventHandler<T extends ExtensionEventName> = (event: Extract<AgentEvent, { type: T }>, context: ExtensionContext) => void | Promise<void>;

/**
 * Decides about one tool call before it runs; `undefined` lets it through. Contract: may be
 * async and should honour `context.signal`; a handler that throws refuses the call (fail
 * closed) and is reported. Handlers are asked in load order; the first refusal wins.
 */
export type BeforeToolCallHandler = (
  call: ToolCallBlock,
  context: ExtensionToolCallContext,
) => ToolCallDecision | undefined | Promise<ToolCallDecision | undefined>;

export interface ExtensionToolCallContext extends ExtensionContext {
  /** Aborted when the turn is. */
  readonly signal: AbortSignal;
}

/** A slash command an extension brings. */
export interface ExtensionCommand {
  /** One line, for the host's help. */
  description: string;
  /**
   * Runs `/name args` (`args`: the rest of the line, trimmed). May be async; the host
   * reports what it throws and carries on.
   */
  handler(args: string, context: ExtensionContext): void | Promise<void>;
}

/** What commands and handlers reach: the agent, the session and the host's user interface. */
export interface ExtensionContext {
  readonly agent: ExtensionAgent;
  readonly session: ExtensionSession;
  readonly ui: ExtensionUI;
}

/** The agent, as extensions drive it. */
export interface ExtensionAgent {
  /** The live conversation, read-only. */
  readonly conversation: Conversation;
  /** The provider and model the next turn uses. */
  readonly model: { readonly provider: string; readonly model: string };
  /**
   * Sends `text` as a prompt and runs the turn, shown by the host as if the user had typed
   * it. Rejects with `AgentBusyError` while a turn runs (from an event handler, say).
   */
  runTurn(text: string): Promise<StepResult>;
  /** Adds (and persists) a system message that replaces or appends to the system prompt. */
  addSystemMessage(text: string, mode?: SystemMode): Promise<DiskMessageRecord>;
  /** Summarises the conversation to free the context (see `Agent.compact`). */
  compact(instructions?: string): Promise<CompactionResult>;
}

/** The session the agent persists to. */
export interface ExtensionSession {
  readonly id: string;
  /** The file that holds it, when it is saved in one (the CLI's, once its first prompt is stored). */
  readonly file: string | undefined;
  /** Every entry stored so far, oldest first: copies, so changing them changes nothing. */
  entries(): Promise<readonly SessionEntry[]>;
}

export type NoticeLevel = 'info' | 'warning' | 'error';

/** The host's user interface. A host with nobody to ask (`panto -p`, a server) answers with the defaults at once. */
export interface ExtensionUI {
  /** Output the user asked for (a command's result): the CLI's stdout. */
  print(text: string): void;
  /** A note about what is going on: the CLI's stderr. */
  notify(message: string, level?: NoticeLevel): void;
  /** A yes/no question; `options.default` (else false) when nobody can answer or the answer is empty. */
  confirm(question: string, options?: { default?: boolean }): Promise<boolean>;
  /** A line of text; `options.default` (else undefined) when nobody can answer or the answer is empty. */
  ask(question: string, options?: { default?: string }): Promise<string | undefined>;
}

/** Every event name `on` accepts, for hosts that check untyped (JavaScript) extensions. */
export const EXTENSION_EVENT_NAMES: readonly (ExtensionEventName | 'before-tool-call')[] = Object.keys({
  'before-tool-call': true,
  'step-start': true,
  'step-end': true,
  'message-start': true,
  'message-end': true,
  'text-start': true,
  'text-delta': true,
  'text-end': true,
  'thinking-start': true,
  'thinking-delta': true,
  'thinking-end': true,
  'tool-call-start': true,
  'tool-call-delta': true,
  'tool-call-end': true,
  'tool-execution-start': true,
  'tool-execution-end': true,
  'entries-persisted': true,
  error: true,
  'compaction-start': true,
  'compaction-end': true,
} satisfies Record<ExtensionEventName | 'before-tool-call', true>) as (ExtensionEventName | 'before-tool-call')[];

/**
 * A user interface with nobody behind it: `print` and `notify` go to the given sinks, and
 * every question is answered with its default at once.
 *
 * @example
 * const ui = headlessUI({ print: (text) => process.stdout.write(`${text}\n`) });
 * await ui.confirm('Delete it?'); // false
 */
export function headlessUI(sinks: { print?: (text: string) => void; notify?: (message: string, level: NoticeLevel) => void } = {}): ExtensionUI {
  return {
    print: (text) => sinks.print?.(text),
    notify: (message, level = 'info') => sinks.notify?.(message, level),
    confirm: async (_question, options) => options?.default ?? false,
    ask: async (_question, options) => options?.default,
  };
}
