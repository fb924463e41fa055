import type OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { StopReason, Usage } from '../messages.js';
import type { Provider, ProviderCallOptions, ProviderEvent, ProviderRequest } from './provider.js';
import type { KeyedProviderOptions } from './provider-options.js';
import type { MessageAssembler } from './message-assembler.js';
import { openAIKey } from './names.js';
import { toOpenAIRequest, type OpenAIRequestSettings } from './openai-request.js';
import { providerErrorFromSDK, type SDKErrorRules } from './sdk-error.js';
import { lazyClient, lazyModule, sdkClientOptions } from './sdk-client.js';
import { DEFAULT_TIMEOUT_MS, streamWire } from './wire-common.js';

/**
 * The OpenAI provider's options: the model id (`gpt-5.4`, or whatever an OpenAI-compatible
 * server calls its model), `apiKey` (default `OPENAI_API_KEY`; the SDK throws at construction
 * when neither is set — a local server that needs no key still needs some value), `baseURL`
 * (default `OPENAI_BASE_URL`, else `https://api.openai.com/v1`: vLLM, llama.cpp, Ollama, a
 * gateway), `maxTokens` (the server's default when absent), and:
 */
export interface OpenAIChatOptions extends KeyedProviderOptions {
  /**
   * The body field for `maxTokens`: `max_completion_tokens` (default; OpenAI's reasoning
   * models accept only this) or `max_tokens` (older OpenAI-compatible servers).
   */
  maxTokensParameter?: 'max_completion_tokens' | 'max_tokens' | undefined;
}

const OPENAI_RETRYABLE_TYPES = new Set(['server_error', 'rate_limit_exceeded', 'rate_limit_error', 'overloaded_error', 'timeout']);

/**
 * A model behind the OpenAI Chat Completions API (OpenAI, or any compatible server), streamed,
 * on the official SDK.
 *
 * Maps the conversation as {@link toOpenAIRequest} describes; streams text and tool calls
 * (assembled by their `index`) as they arrive — and `reasoning_content` / `reasoning` deltas
 * of compatible servers as thinking, kept with an empty signature and never sent back; ends
 * with one `message-end` carrying usage and the normalised stop reason, or one `error` event.
 * See docs/providers.md.
 *
 * @example
 * const provider = new OpenAIChatProvider({ model: 'llama3.1', baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' });
 */
export class OpenAIChatProvider implements Provider {
  readonly name = 'openai';
  readonly model: string;
  readonly #client: () => Promise<OpenAI>;
  readonly #settings: OpenAIRequestSettings;
  readonly #idleMs: number;

  constructor(options: OpenAIChatOptions) {
    this.model = options.model;
    this.#settings = {
      model: options.model,
      maxTokens: options.maxTokens,
      maxTokensParameter: options.maxTokensParameter ?? 'max_completion_tokens',
      temperature: options.temperature,
    };
    this.#idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const apiKey = openAIKey(options.apiKey);
    const clientOptions = sdkClientOptions({ ...options, apiKey, timeoutMs: this.#idleMs });
    this.#client = lazyClient(openaiSDK, (sdk) => new sdk.default(clientOptions));
  }

  stream(request: ProviderRequest, options: ProviderCallOptions): AsyncGenerator<ProviderEvent> {
    const state: ChunkState = { tools: new Map(), refused: false };
    return streamWire<ChatCompletionChunk>(
      {
        provider: this.name,
        model: this.model,
        idleMs: this.#idleMs,
        request,
        open: async (signal) => (await this.#client()).chat.completions.create(toOpenAIRequest(request, this.#settings), { signal }),
        apply: (chunk, assembler) => applyChunk(chunk, state, assembler),
        finished: (assembler) =>
          state.finishReason === undefined
            ? undefined
            : {
                stopReason: normaliseOpenAIStopReason(state.finishReason, {
                  hasToolCalls: assembler.hasToolCalls,
                  refused: state.refused,
                }),
                raw: state.finishReason,
              },
        toError: openaiError,
      },
      options.signal,
    );
  }
}

interface ChunkState {
  text?: number | undefined;
  thinking?: number | undefined;
  /** Wire tool-call index (or -1 for a legacy `function_call`) → content index. */
  tools: Map<number, number>;
  refused: boolean;
  finishReason?: string | undefined;
}

/** Reasoning text as OpenAI-compatible servers stream it (vLLM, DeepSeek: `reasoning_content`; Ollama, OpenRouter: `reasoning`). */
function reasoningOf(delta: object): string | undefined {
  const fields = delta as { reasoning_content?: unknown; reasoning?: unknown };
  const value = fields.reasoning_content ?? fields.reasoning;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Closes the open text or thinking block, before a block of another kind opens. */
function closeProse(state: ChunkState, assembler: MessageAssembler): void {
  if (state.text !== undefined) assembler.close(state.text);
  if (state.thinking !== undefined) assembler.close(state.thinking);
  state.text = state.thinking = undefined;
}

/** Text or refusal text, into the open text block (opened first if need be). */
function applyText(text: unknown, refusal: boolean, state: ChunkState, assembler: MessageAssembler): void {
  if (typeof text !== 'string' || text === '') return;
  if (refusal) state.refused = true;
  if (state.text === undefined) {
    closeProse(state, assembler);
    state.text = assembler.openText();
  }
  assembler.appendText(state.text, text);
}

/** One piece of a tool call: `index` is the wire's (-1 for a legacy `function_call`). */
function applyToolCall(
  index: number,
  id: string | undefined,
  name: string | undefined,
  args: string | undefined,
  state: ChunkState,
  assembler: MessageAssembler,
): void {
  let block = state.tools.get(index);
  if (block === undefined) {
    closeProse(state, assembler);
    block = assembler.openToolCall(id, name ?? '');
    state.tools.set(index, block);
  }
  assembler.appendToolCall(block, args ?? '');
}

/** One chunk of the stream: hundreds a message, so nothing is allocated for what it does not carry. */
function applyChunk(chunk: ChatCompletionChunk, state: ChunkState, assembler: MessageAssembler): void {
  if (chunk.usage) assembler.usage = openaiUsage(chunk.usage);
  // Some compatible servers send `choices: null` on the usage chunk.
  const choice = (chunk.choices as ChatCompletionChunk['choices'] | null | undefined)?.[0];
  if (!choice) return;
  const delta = choice.delta ?? {};
  const reasoning = reasoningOf(delta);
  if (reasoning !== undefined) {
    if (state.thinking === undefined) {
      closeProse(state, assembler);
      state.thinking = assembler.openThinking();
    }
    assembler.appendThinking(state.thinking, reasoning);
  }
  applyText(delta.content, false, state, assembler);
  applyText(delta.refusal, true, state, assembler);
  for (const call of delta.tool_calls ?? []) applyToolCall(call.index, call.id, call.function?.name, call.function?.arguments, state, assembler);
  if (delta.function_call) applyToolCall(-1, undefined, delta.function_call.name, delta.function_call.arguments, state, assembler);
  if (choice.finish_reason) {
    state.finishReason = choice.finish_reason;
    assembler.closeAll();
  }
}

/**
 * Chat Completions usage in panto's terms, where the four counts are disjoint:
 * `prompt_tokens` includes cached tokens, so `input_tokens` is what is left after taking
 * out `cached_tokens` (cache read) and `cache_write_tokens` (cache write, when reported).
 * Their sum is the whole prompt, as with Anthropic.
 */
export function openaiUsage(usage: CompletionUsage): Usage {
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - cacheRead - cacheWrite),
    output_tokens: usage.completion_tokens,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
  };
}

/**
 * The Chat Completions `finish_reason`, normalised: `tool_calls` / `function_call` →
 * `tool_use`, `length` → `max_tokens`, `content_filter` → `refusal`, `stop` → `end_turn` —
 * or `refusal` when the model streamed a refusal, or `tool_use` when it made tool calls
 * (some compatible servers say `stop` then). Unknown values are treated like `stop`.
 */
export function normaliseOpenAIStopReason(raw: string, seen: { hasToolCalls: boolean; refused: boolean }): StopReason {
  switch (raw) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return seen.refused ? 'refusal' : seen.hasToolCalls ? 'tool_use' : 'end_turn';
  }
}

type OpenAISDK = typeof import('openai');
const openaiSDK = lazyModule<OpenAISDK>(() => import('openai'));

/** The SDK's failure as the call's error: HTTP errors and error chunks keep status, type and the API's message. */
function openaiError(error: unknown): Error {
  return providerErrorFromSDK(error, openaiErrorRules(openaiSDK.loaded));
}

/** How the OpenAI SDK's errors read; `sdk` is undefined until the SDK was loaded. */
export function openaiErrorRules(sdk: OpenAISDK | undefined): SDKErrorRules<InstanceType<OpenAISDK['APIError']>> {
  return {
    provider: 'openai',
    classes: sdk,
    describe: (apiError) => {
      const body = apiError.error as { message?: unknown } | undefined;
      const type = apiError.type ?? (typeof apiError.code === 'string' ? apiError.code : undefined);
      // A 429 for an exhausted quota does not get better by waiting.
      const quota = apiError.code === 'insufficient_quota' || type === 'insufficient_quota';
      return {
        type,
        message: typeof body?.message === 'string' ? body.message : apiError.message,
        ...(quota ? { retryable: false as const } : {}),
      };
    },
    retryableTypes: OPENAI_RETRYABLE_TYPES,
  };
}
