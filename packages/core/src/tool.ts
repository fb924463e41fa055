import type { ImageBlock, JsonValue, ToolCallBlock } from './messages.js';

/** A JSON Schema for a tool's input; the top level is an object schema. */
export interface ToolInputSchema {
  type: 'object';
  properties?: { [name: string]: JsonValue };
  required?: string[];
  [keyword: string]: JsonValue | undefined;
}

/** What a model is told about a tool. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly input_schema: ToolInputSchema;
}

export interface ToolContext {
  /** Aborted when the step is aborted; long-running tools must stop promptly. */
  readonly signal: AbortSignal;
  /** The provider's id of this call. */
  readonly toolCallId: string;
}

/**
 * What a tool returns: its text, whether it is an error the model should see, and images
 * (sent to providers that take them; see `ToolResultMessage.images`).
 */
export type ToolOutput = string | { content: string; is_error?: boolean; images?: ImageBlock[] };

/**
 * Something the model can call.
 *
 * @example
 * const clock: Tool = {
 *   name: 'clock',
 *   description: 'The current time',
 *   input_schema: { type: 'object', properties: {} },
 *   execute: async () => new Date().toISOString(),
 * };
 */
export interface Tool extends ToolDefinition {
  /**
   * When set, every call of this tool waits for a person's decision instead of running: the
   * step commits the assistant message (its other calls run at once) and ends with
   * `stopReason: "awaiting_approval"`; `agent.decideApprovals` resumes it. Never sent to a
   * model. A host that cannot pause (a terminal asking at once) uses `beforeToolCall` instead.
   */
  readonly approval?: ToolApproval;
  /**
   * Runs the call. A thrown error becomes an error result the model sees (the step goes
   * on); an abort through `context.signal` ends the step.
   */
  execute(input: { [key: string]: JsonValue }, context: ToolContext): Promise<ToolOutput>;
}

/** Why a tool's calls wait for a person's decision (see {@link Tool.approval}). */
export interface ToolApproval {
  /** In words the person deciding reads: `the operator marked it as asking`. */
  readonly reason: string;
}

/** What a {@link BeforeToolCall} hook decided about one call. */
export type ToolCallDecision = { type: 'allow' } | { type: 'refuse'; reason: string };

/**
 * Consulted before each tool call runs, after `tool-execution-start`: an extension's guard,
 * or a host asking the user for approval. Resolving to `{ type: 'refuse', reason }` turns
 * the call into an error result the model sees (`Tool call refused: <reason>`), persisted
 * like any other result; `undefined` or `{ type: 'allow' }` runs the tool.
 *
 * Contract: called once per call of a registered tool, one call at a time; may be async and
 * should honour `context.signal` (an abort ends the step whatever the hook does). A hook
 * that throws or rejects refuses the call (fail closed), with its error as the reason.
 *
 * @example
 * const noRm: BeforeToolCall = (call) =>
 *   call.name === 'bash' && String(call.input.command).includes('rm -rf')
 *     ? { type: 'refuse', reason: 'rm -rf is not allowed here' }
 *     : undefined;
 */
export type BeforeToolCall = (call: ToolCallBlock, context: ToolContext) => ToolCallDecision | undefined | Promise<ToolCallDecision | undefined>;

/** The tools an agent offers, by name. Tools may be registered after the agent is built. */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool; a second tool with the same name is an error. */
  register(tool: Tool): this {
    if (this.#tools.has(tool.name)) throw new Error(`a tool named ${tool.name} is already registered`);
    this.#tools.set(tool.name, tool);
    return this;
  }

  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  list(): Tool[] {
    return [...this.#tools.values()];
  }

  definitions(): ToolDefinition[] {
    return this.list().map(({ name, description, input_schema }) => ({ name, description, input_schema }));
  }
}
