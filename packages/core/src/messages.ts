/**
 * The messages of a conversation. These are plain data records: they are written to the
 * session log as they are (snake_case fields, JSON values only), so a message read back
 * from any store is deep-equal to the one that was appended.
 */

/**
 * Why the model stopped, normalised across providers — or, for `awaiting_approval`, why the
 * step stopped after it: the message calls tools that wait for a person's decision (see
 * `AssistantMessage.approval_requests`); the provider's own reason stays in `raw_stop_reason`.
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'aborted' | 'error' | 'awaiting_approval';

export const STOP_REASONS: readonly StopReason[] = ['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'refusal', 'aborted', 'error', 'awaiting_approval'];

/** Token usage of one provider call, as the provider reported it. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** A JSON value, as tool-call inputs carry them. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface TextBlock {
  type: 'text';
  text: string;
}

/** Model reasoning that must be sent back verbatim (Anthropic checks the signature). */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Reasoning the provider encrypted; sent back verbatim. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export interface ToolCallBlock {
  type: 'tool_call';
  /** The provider's id for the call; the tool result refers to it. */
  id: string;
  name: string;
  /** The parsed JSON arguments. */
  input: { [key: string]: JsonValue };
}

export type AssistantBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock;

/** How a system message combines with the system prompt before it. */
export type SystemMode = 'replace' | 'append';

export interface SystemMessage {
  role: 'system';
  content: string;
  mode: SystemMode;
}

export interface UserMessage {
  role: 'user';
  content: string;
  /** The provider configured when the prompt was submitted. */
  provider?: string;
  /** The model configured when the prompt was submitted. */
  model?: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantBlock[];
  provider: string;
  model: string;
  usage: Usage;
  stop_reason: StopReason;
  /** The stop reason exactly as the provider sent it, when it sent one. */
  raw_stop_reason?: string;
  /** For `error` and `aborted`: what went wrong. */
  error_message?: string;
  /**
   * For `awaiting_approval`: the calls of this message that wait for a person's decision, in
   * the message's order, each with why it asks. The message's other calls ran at once.
   */
  approval_requests?: ApprovalRequest[];
}

/** A tool call that waits for a person's decision before it runs (see `AssistantMessage.approval_requests`). */
export interface ApprovalRequest {
  tool_call_id: string;
  /** Why the call asks, in words a person reads (`the operator marked it as asking`). */
  reason: string;
}

/** An image, base64-encoded: what a tool (an MCP server's, say) returned besides its text. */
export interface ImageBlock {
  type: 'image';
  /** `image/png`, `image/jpeg`, … as the tool said. */
  media_type: string;
  /** The image's bytes, base64. */
  data: string;
}

export interface ToolResultMessage {
  role: 'tool_result';
  tool_call_id: string;
  tool_name: string;
  content: string;
  is_error: boolean;
  /**
   * Images the tool returned besides `content`. Providers that take images in tool results
   * (Anthropic) get them; the others get a line in the text saying one was left out.
   */
  images?: ImageBlock[];
}

/**
 * The summary that stands in for everything before a compaction. Providers send it as a
 * user message.
 */
export interface CompactionMessage {
  role: 'compaction';
  summary: string;
  provider: string;
  model: string;
  /** Usage of the call that wrote the summary. */
  usage: Usage;
  /** Usage of every message the summary replaced (including earlier compactions). */
  prior_usage: Usage;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage | CompactionMessage;

export type Role = Message['role'];

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
  };
}

/** The usage a message accounts for: its own call, plus what a compaction replaced. */
export function messageUsage(message: Message): Usage | undefined {
  switch (message.role) {
    case 'assistant':
      return message.usage;
    case 'compaction':
      return addUsage(message.usage, message.prior_usage);
    case 'system':
    case 'user':
    case 'tool_result':
      return undefined;
    default:
      return assertNever(message);
  }
}

/** The tool calls of an assistant message, in order. */
export function toolCalls(message: AssistantMessage): ToolCallBlock[] {
  return message.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
}

/** The result of `call` (without images): what the model sees of it. */
export function toolResultMessage(call: ToolCallBlock, content: string, isError: boolean): ToolResultMessage {
  return { role: 'tool_result', tool_call_id: call.id, tool_name: call.name, content, is_error: isError };
}

/** The text of an assistant message, its text blocks joined. */
export function assistantText(message: AssistantMessage): string {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return text;
}

/**
 * The system prompt in force after `messages`: a `replace` message starts it anew, an
 * `append` message adds a paragraph. Undefined when there is none.
 */
export function effectiveSystemPrompt(messages: readonly Message[]): string | undefined {
  let prompt: string | undefined;
  for (const message of messages) {
    if (message.role !== 'system') continue;
    prompt = message.mode === 'replace' || prompt === undefined || prompt === '' ? message.content : `${prompt}\n\n${message.content}`;
  }
  return prompt;
}

export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
