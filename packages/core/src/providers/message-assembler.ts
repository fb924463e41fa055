import { randomUUID } from 'node:crypto';
import { emptyUsage, type AssistantBlock, type AssistantMessage, type JsonValue, type StopReason, type Usage } from '../messages.js';
import { saneUsage } from './sane-usage.js';
import type { ProviderRequest, ProviderStreamEvent } from './provider.js';
import { estimateRequestTokens, estimateTokens } from './token-estimate.js';

type Slot =
  | { type: 'text'; text: string; open: boolean }
  | { type: 'thinking'; thinking: string; signature: string; open: boolean }
  | { type: 'redacted_thinking'; data: string; open: false }
  | {
      type: 'tool_call';
      id: string;
      name: string;
      json: string;
      input: { [key: string]: JsonValue } | undefined;
      open: boolean;
    };

/**
 * Builds one assistant message from wire deltas and queues the stream events that go with
 * them. A provider feeds it as the wire arrives and yields `drain()` after each wire event;
 * indexes in the events are positions in the finished message's `content`.
 *
 * Tool-call arguments are parsed once, when the call closes: empty arguments are `{}`, and
 * arguments that are not a JSON object (a model that wrote broken JSON, or a stream cut
 * short by `max_tokens`) become `{}` too — the tool then sees an empty input and reports
 * what is missing, which the model can act on; the call is not dropped.
 */
export class MessageAssembler {
  usage: Usage = emptyUsage();
  readonly #slots: Slot[] = [];
  #pending: ProviderStreamEvent[] = [];

  /** `request` is what the call was asked: a call cut short before its usage arrived is estimated from it ({@link partial}). */
  constructor(private readonly request?: ProviderRequest) {}

  /** The queued stream events, oldest first; the queue is emptied. */
  drain(): ProviderStreamEvent[] {
    const events = this.#pending;
    this.#pending = [];
    return events;
  }

  openText(): number {
    const index = this.#slots.push({ type: 'text', text: '', open: true }) - 1;
    this.#pending.push({ type: 'text-start', index });
    return index;
  }

  appendText(index: number, delta: string): void {
    const slot = this.#slots[index];
    if (slot?.type !== 'text' || !slot.open || !isText(delta)) return;
    slot.text += delta;
    this.#pending.push({ type: 'text-delta', index, delta });
  }

  openThinking(): number {
    const index = this.#slots.push({ type: 'thinking', thinking: '', signature: '', open: true }) - 1;
    this.#pending.push({ type: 'thinking-start', index });
    return index;
  }

  appendThinking(index: number, delta: string): void {
    const slot = this.#slots[index];
    if (slot?.type !== 'thinking' || !slot.open || !isText(delta)) return;
    slot.thinking += delta;
    this.#pending.push({ type: 'thinking-delta', index, delta });
  }

  appendSignature(index: number, delta: string): void {
    const slot = this.#slots[index];
    if (slot?.type === 'thinking' && slot.open && isText(delta)) slot.signature += delta;
  }

  /** Encrypted reasoning arrives whole; it has no stream events. */
  addRedactedThinking(data: string): number {
    return this.#slots.push({ type: 'redacted_thinking', data, open: false }) - 1;
  }

  /** Opens a tool call; a missing id (some OpenAI-compatible servers) gets a generated one. */
  openToolCall(id: string | undefined, name: string): number {
    const callId = id !== undefined && id !== '' ? id : `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    const index = this.#slots.push({ type: 'tool_call', id: callId, name, json: '', input: undefined, open: true }) - 1;
    this.#pending.push({ type: 'tool-call-start', index, id: callId, name });
    return index;
  }

  appendToolCall(index: number, delta: string): void {
    const slot = this.#slots[index];
    if (slot?.type !== 'tool_call' || !slot.open || !isText(delta)) return;
    slot.json += delta;
    this.#pending.push({ type: 'tool-call-delta', index, delta });
  }

  /** Closes a block and queues its end event; closing a closed block does nothing. */
  close(index: number): void {
    const slot = this.#slots[index];
    if (!slot?.open) return;
    slot.open = false;
    switch (slot.type) {
      case 'text':
        this.#pending.push({ type: 'text-end', index, text: slot.text });
        return;
      case 'thinking':
        this.#pending.push({ type: 'thinking-end', index, thinking: slot.thinking });
        return;
      case 'tool_call':
        slot.input = parseToolArguments(slot.json);
        this.#pending.push({
          type: 'tool-call-end',
          index,
          toolCall: { type: 'tool_call', id: slot.id, name: slot.name, input: slot.input },
        });
        return;
      default:
        return;
    }
  }

  /** Closes every open block, in order. */
  closeAll(): void {
    for (let index = 0; index < this.#slots.length; index++) this.close(index);
  }

  get hasToolCalls(): boolean {
    return this.#slots.some((slot) => slot.type === 'tool_call');
  }

  /** The finished message: every block, closed, in order. */
  message(provider: string, model: string, stopReason: StopReason, rawStopReason: string | undefined): AssistantMessage {
    this.closeAll();
    const content: AssistantBlock[] = [];
    for (const slot of this.#slots) {
      switch (slot.type) {
        case 'text':
          content.push({ type: 'text', text: slot.text });
          break;
        case 'thinking':
          content.push({ type: 'thinking', thinking: slot.thinking, signature: slot.signature });
          break;
        case 'redacted_thinking':
          content.push({ type: 'redacted_thinking', data: slot.data });
          break;
        case 'tool_call':
          content.push({ type: 'tool_call', id: slot.id, name: slot.name, input: slot.input ?? {} });
          break;
        default:
          slot satisfies never;
      }
    }
    const message: AssistantMessage = {
      role: 'assistant',
      content,
      provider,
      model,
      // The provider's word, made sane where it enters panto (see sane-usage.ts).
      usage: saneUsage(this.usage).usage,
      stop_reason: stopReason,
    };
    if (rawStopReason !== undefined) message.raw_stop_reason = rawStopReason;
    return message;
  }

  /**
   * What may be kept of a call cut short: the text that had arrived (thinking and tool
   * calls are dropped — they are only valid whole), marked `error` or `aborted`.
   * Undefined when no text had arrived.
   *
   * Its usage is what the provider reported before the cut, completed where the wire had
   * not reported yet: the provider bills the tokens it read and wrote whether or not the
   * stream ends, but most wires report them only at the end (OpenAI's usage chunk,
   * Anthropic's output count in `message_delta`). Input not reported at all is estimated
   * from the request; output is at least the estimate of everything that streamed — text,
   * thinking and tool-call arguments alike.
   */
  partial(provider: string, model: string, stopReason: 'error' | 'aborted', error: Error): AssistantMessage | undefined {
    const content: AssistantBlock[] = [];
    for (const slot of this.#slots) if (slot.type === 'text' && slot.text !== '') content.push({ type: 'text', text: slot.text });
    if (content.length === 0) return undefined;
    return {
      role: 'assistant',
      content,
      provider,
      model,
      usage: this.#cutShortUsage(),
      stop_reason: stopReason,
      error_message: error.message,
    };
  }

  /** The usage of a call cut short (see {@link partial}). */
  #cutShortUsage(): Usage {
    const usage = saneUsage(this.usage).usage;
    const reportedInput = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
    if (reportedInput === 0 && this.request !== undefined) usage.input_tokens = estimateRequestTokens(this.request);
    let streamed = '';
    for (const slot of this.#slots) {
      if (slot.type === 'text') streamed += slot.text;
      else if (slot.type === 'thinking') streamed += slot.thinking;
      else if (slot.type === 'tool_call') streamed += slot.name + slot.json;
    }
    usage.output_tokens = Math.max(usage.output_tokens, estimateTokens(streamed));
    return usage;
  }
}

/** Parses streamed tool-call arguments; anything but a JSON object is `{}` (see {@link MessageAssembler}). */
export function parseToolArguments(json: string): { [key: string]: JsonValue } {
  if (json.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { [key: string]: JsonValue }) : {};
  } catch {
    // Truncated or malformed arguments: `{}`, as documented above; the tool refuses what it lacks.
    return {};
  }
}

/** A non-empty string. Wire fields typed as strings are sometimes absent (the thinking start has no `signature`). */
function isText(value: string | undefined): value is string {
  return typeof value === 'string' && value !== '';
}
