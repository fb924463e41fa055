import type { AssistantMessage, Message, ToolCallBlock } from '../messages.js';
import type { ToolDefinition } from '../tool.js';

/** What the agent asks a provider for: the next assistant message. */
export interface ProviderRequest {
  /** The whole conversation, system and compaction messages included, oldest first. */
  readonly messages: readonly Message[];
  /** The tools the model may call (possibly none). */
  readonly tools: readonly ToolDefinition[];
  /**
   * `compaction` when the agent asks for a summary of the conversation (`Agent.compact`):
   * the last message is then the summary instruction. Absent for an ordinary turn. Model
   * providers need not look at it; the offline provider writes its summary from it.
   */
  readonly purpose?: 'compaction';
}

export interface ProviderCallOptions {
  /** Aborting cancels the HTTP request promptly; the stream then ends with an `error` event. */
  readonly signal: AbortSignal;
}

/** Incremental output of one provider call, in the order it arrived. */
export type ProviderStreamEvent =
  | { type: 'text-start'; index: number }
  | { type: 'text-delta'; index: number; delta: string }
  | { type: 'text-end'; index: number; text: string }
  | { type: 'thinking-start'; index: number }
  | { type: 'thinking-delta'; index: number; delta: string }
  | { type: 'thinking-end'; index: number; thinking: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; delta: string }
  | { type: 'tool-call-end'; index: number; toolCall: ToolCallBlock };

/**
 * The end of a provider call: exactly one of these closes every stream.
 * - `message-end`: the finished message, with usage and its real stop reason.
 * - `error`: the call failed (HTTP error, dropped stream, error event, abort). `partial`
 *   holds the text that had fully arrived, if any, with stop reason `error` or `aborted`;
 *   it is never presented as complete.
 */
export type ProviderEndEvent = { type: 'message-end'; message: AssistantMessage } | { type: 'error'; error: Error; partial?: AssistantMessage };

export type ProviderEvent = ProviderStreamEvent | ProviderEndEvent;

/**
 * A model behind some API. Implementations map the neutral conversation to their wire
 * format and back.
 *
 * @example
 * for await (const event of provider.stream({ messages, tools }, { signal })) {
 *   if (event.type === 'text-delta') process.stdout.write(event.delta);
 * }
 */
export interface Provider {
  /** The provider name recorded on messages: `anthropic`, `openai`, `offline`, … */
  readonly name: string;
  /** The model recorded on messages. */
  readonly model: string;
  /**
   * Streams one assistant message. Contract: yields stream events, then exactly one end
   * event, then finishes; must not throw (failures are the `error` end event).
   */
  stream(request: ProviderRequest, options: ProviderCallOptions): AsyncIterable<ProviderEvent>;
}
