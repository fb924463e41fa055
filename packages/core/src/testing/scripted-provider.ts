import { ProviderError } from '../errors.js';
import { emptyUsage, type AssistantBlock, type AssistantMessage, type JsonValue, type StopReason, type Usage } from '../messages.js';
import type { Provider, ProviderCallOptions, ProviderEvent, ProviderRequest } from '../providers/provider.js';

/** One scripted provider reply. */
export interface ScriptedReply {
  /** Text of the reply, streamed in `chunkSize`-character deltas. */
  text?: string;
  /** Thinking block(s) to put before the text. */
  thinking?: { thinking: string; signature: string }[];
  toolCalls?: { id?: string; name: string; input: { [key: string]: JsonValue } }[];
  usage?: Partial<Usage>;
  /** Defaults to `tool_use` when there are tool calls, else `end_turn`. */
  stopReason?: StopReason;
  /** Fail with this error after `failAfterChunks` text deltas (default 0). */
  error?: Error;
  failAfterChunks?: number;
  /** Stop after `hangAfterChunks` text deltas and wait until aborted. */
  hang?: boolean;
  hangAfterChunks?: number;
}

export interface ScriptedProviderOptions {
  name?: string;
  model?: string;
  /** Characters per text delta (default 4). */
  chunkSize?: number;
}

/**
 * A provider that plays back scripted replies, one per call, and records every request.
 * Running out of replies is an error event.
 *
 * @example
 * const provider = new ScriptedProvider([
 *   { toolCalls: [{ name: 'clock', input: {} }] },
 *   { text: 'It is noon.', usage: { input_tokens: 10, output_tokens: 3 } },
 * ]);
 */
export class ScriptedProvider implements Provider {
  readonly name: string;
  readonly model: string;
  /** Every request received, deep-copied at the time of the call. */
  readonly requests: ProviderRequest[] = [];
  readonly #replies: ScriptedReply[];
  readonly #chunkSize: number;
  #calls = 0;

  constructor(replies: ScriptedReply[], options: ScriptedProviderOptions = {}) {
    this.#replies = [...replies];
    this.name = options.name ?? 'scripted';
    this.model = options.model ?? 'scripted-1';
    this.#chunkSize = options.chunkSize ?? 4;
  }

  /** Adds replies for later calls. */
  push(...replies: ScriptedReply[]): void {
    this.#replies.push(...replies);
  }

  get remaining(): number {
    return this.#replies.length;
  }

  async *stream(request: ProviderRequest, { signal }: ProviderCallOptions): AsyncGenerator<ProviderEvent> {
    this.requests.push(structuredClone({ messages: [...request.messages], tools: [...request.tools] }));
    const callNumber = ++this.#calls;
    const reply = this.#replies.shift();
    if (!reply) {
      yield { type: 'error', error: new ProviderError(this.name, `no scripted reply left for call ${callNumber}`) };
      return;
    }
    const content: AssistantBlock[] = [];
    const usage: Usage = { ...emptyUsage(), ...reply.usage };
    const partial = (stopReason: StopReason, error: Error): AssistantMessage => ({
      role: 'assistant',
      content: content.filter((block) => block.type === 'text'),
      provider: this.name,
      model: this.model,
      usage,
      stop_reason: stopReason,
      error_message: error.message,
    });
    let index = 0;
    for (const block of reply.thinking ?? []) {
      yield { type: 'thinking-start', index };
      yield { type: 'thinking-delta', index, delta: block.thinking };
      yield { type: 'thinking-end', index, thinking: block.thinking };
      content.push({ type: 'thinking', ...block });
      index++;
    }
    const text = reply.text ?? '';
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += this.#chunkSize) chunks.push(text.slice(i, i + this.#chunkSize));
    const failAt = reply.error ? (reply.failAfterChunks ?? 0) : -1;
    const hangAt = reply.hang ? (reply.hangAfterChunks ?? 0) : -1;
    const textBlock = { type: 'text' as const, text: '' };
    if (chunks.length > 0 || failAt >= 0 || hangAt >= 0) {
      yield { type: 'text-start', index };
      content.push(textBlock);
    }
    for (let i = 0; i <= chunks.length; i++) {
      if (signal.aborted) {
        yield { type: 'error', error: abortReason(signal), partial: partial('aborted', abortReason(signal)) };
        return;
      }
      if (i === failAt && reply.error) {
        yield { type: 'error', error: reply.error, partial: partial('error', reply.error) };
        return;
      }
      if (i === hangAt) {
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        yield { type: 'error', error: abortReason(signal), partial: partial('aborted', abortReason(signal)) };
        return;
      }
      const chunk = chunks[i];
      if (chunk === undefined) break;
      textBlock.text += chunk;
      yield { type: 'text-delta', index, delta: chunk };
      await Promise.resolve();
    }
    if (chunks.length > 0) {
      yield { type: 'text-end', index, text: textBlock.text };
      index++;
    }
    yield* toolCallEvents(reply, callNumber, index, content);
    const stopReason = reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
    yield {
      type: 'message-end',
      message: { role: 'assistant', content, provider: this.name, model: this.model, usage, stop_reason: stopReason },
    };
  }
}

/** The reply's tool calls as events, the first at content index `index`; each call is added to `content`. */
function* toolCallEvents(reply: ScriptedReply, callNumber: number, index: number, content: AssistantBlock[]): Generator<ProviderEvent> {
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    const toolCall = {
      type: 'tool_call' as const,
      id: call.id ?? `call_${callNumber}_${i}`,
      name: call.name,
      input: call.input,
    };
    yield { type: 'tool-call-start', index, id: toolCall.id, name: toolCall.name };
    yield { type: 'tool-call-delta', index, delta: JSON.stringify(call.input) };
    yield { type: 'tool-call-end', index, toolCall };
    content.push(toolCall);
    index++;
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
