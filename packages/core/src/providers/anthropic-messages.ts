import type Anthropic from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { StopReason, Usage } from '../messages.js';
import type { Provider, ProviderCallOptions, ProviderEvent, ProviderRequest } from './provider.js';
import type { KeyedProviderOptions } from './provider-options.js';
import { toAnthropicRequest, type AnthropicRequestSettings } from './anthropic-request.js';
import type { MessageAssembler } from './message-assembler.js';
import { providerErrorFromSDK, type SDKErrorRules } from './sdk-error.js';
import { lazyClient, lazyModule, sdkClientOptions } from './sdk-client.js';
import { DEFAULT_TIMEOUT_MS, streamWire } from './wire-common.js';

/** Output tokens asked for when `maxTokens` is not set (on top of any thinking budget). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/**
 * The Anthropic provider's options: the model id (`claude-sonnet-5-5`), `apiKey` (default
 * `ANTHROPIC_API_KEY`; the SDK also honours its other credential sources), `baseURL` (default
 * `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`), `maxTokens` (default
 * {@link DEFAULT_ANTHROPIC_MAX_TOKENS}, plus the thinking budget when thinking is on), and:
 */
export interface AnthropicMessagesOptions extends KeyedProviderOptions {
  /** Extended thinking with this budget (must be below `maxTokens`). Off when absent. */
  thinking?: { budgetTokens: number } | undefined;
  /**
   * Cache breakpoints on the system prompt and the newest message, so a tool loop pays
   * for its shared prefix once (see docs/providers.md). Default true.
   */
  promptCaching?: boolean | undefined;
}

const ANTHROPIC_RETRYABLE_TYPES = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'timeout_error']);

/**
 * Claude through the Anthropic Messages API, streamed, on the official SDK.
 *
 * Maps the conversation as {@link toAnthropicRequest} describes; streams text, thinking
 * and tool calls as they arrive; ends with one `message-end` carrying usage (input, output,
 * cache read, cache write, as the wire reports them) and the normalised stop reason, or
 * with one `error` event. See docs/providers.md.
 *
 * @example
 * const provider = new AnthropicMessagesProvider({ model: 'claude-sonnet-5-5' }); // key from ANTHROPIC_API_KEY
 * const agent = new Agent({ provider }, { store });
 */
export class AnthropicMessagesProvider implements Provider {
  readonly name = 'anthropic';
  readonly model: string;
  readonly #client: () => Promise<Anthropic>;
  readonly #settings: AnthropicRequestSettings;
  readonly #idleMs: number;

  constructor(options: AnthropicMessagesOptions) {
    this.model = options.model;
    const budget = options.thinking?.budgetTokens;
    const maxTokens = options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS + (budget ?? 0);
    if (budget !== undefined && budget >= maxTokens) {
      throw new RangeError(`thinking.budgetTokens (${budget}) must be less than maxTokens (${maxTokens})`);
    }
    this.#settings = {
      model: options.model,
      maxTokens,
      temperature: options.temperature,
      thinking: options.thinking,
      promptCaching: options.promptCaching,
    };
    this.#idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const clientOptions = sdkClientOptions({ ...options, timeoutMs: this.#idleMs });
    this.#client = lazyClient(anthropicSDK, (sdk) => new sdk.default(clientOptions));
  }

  stream(request: ProviderRequest, options: ProviderCallOptions): AsyncGenerator<ProviderEvent> {
    const blocks = new Map<number, number>();
    let rawStopReason: string | undefined;
    let complete = false;
    return streamWire<RawMessageStreamEvent>(
      {
        provider: this.name,
        model: this.model,
        idleMs: this.#idleMs,
        request,
        open: async (signal) => (await this.#client()).messages.create(toAnthropicRequest(request, this.#settings), { signal }),
        apply: (event, assembler) => {
          if (event.type === 'message_delta') rawStopReason = event.delta.stop_reason ?? rawStopReason;
          if (event.type === 'message_stop') complete = true;
          applyEvent(event, assembler, blocks);
        },
        finished: (assembler) =>
          complete ? { stopReason: normaliseAnthropicStopReason(rawStopReason, assembler.hasToolCalls), raw: rawStopReason } : undefined,
        toError: anthropicError,
      },
      options.signal,
    );
  }
}

/** Feeds one wire event to the assembler. `blocks` maps wire block indexes to content indexes. */
function applyEvent(event: RawMessageStreamEvent, assembler: MessageAssembler, blocks: Map<number, number>): void {
  switch (event.type) {
    case 'message_start':
      assembler.usage = mergeUsage(assembler.usage, event.message.usage);
      return;
    case 'message_delta':
      assembler.usage = mergeUsage(assembler.usage, event.usage);
      return;
    case 'content_block_start': {
      const block = event.content_block;
      switch (block.type) {
        case 'text': {
          const index = assembler.openText();
          assembler.appendText(index, block.text);
          blocks.set(event.index, index);
          return;
        }
        case 'thinking': {
          const index = assembler.openThinking();
          assembler.appendThinking(index, block.thinking);
          assembler.appendSignature(index, block.signature);
          blocks.set(event.index, index);
          return;
        }
        case 'redacted_thinking':
          blocks.set(event.index, assembler.addRedactedThinking(block.data));
          return;
        case 'tool_use': {
          const index = assembler.openToolCall(block.id, block.name);
          // The input arrives as deltas; a start that already carries it is taken as one delta.
          if (isNonEmptyObject(block.input)) assembler.appendToolCall(index, JSON.stringify(block.input));
          blocks.set(event.index, index);
          return;
        }
        default:
          // Server-tool blocks: panto offers no server tools, so none are expected; ignored.
          return;
      }
    }
    case 'content_block_delta': {
      const index = blocks.get(event.index);
      if (index === undefined) return;
      const delta = event.delta;
      switch (delta.type) {
        case 'text_delta':
          assembler.appendText(index, delta.text);
          return;
        case 'thinking_delta':
          assembler.appendThinking(index, delta.thinking);
          return;
        case 'signature_delta':
          assembler.appendSignature(index, delta.signature);
          return;
        case 'input_json_delta':
          assembler.appendToolCall(index, delta.partial_json);
          return;
        default:
          // Citations: not requested, not kept.
          return;
      }
    }
    case 'content_block_stop': {
      const index = blocks.get(event.index);
      if (index !== undefined) assembler.close(index);
      return;
    }
    case 'message_stop':
      return;
    default:
      // An event type newer than this code: ignored, as the API's versioning policy asks.
      return;
  }
}

interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** `message_start` carries the first counts; `message_delta` the cumulative ones (null = unchanged). */
function mergeUsage(usage: Usage, wire: WireUsage): Usage {
  return {
    input_tokens: wire.input_tokens ?? usage.input_tokens,
    output_tokens: wire.output_tokens ?? usage.output_tokens,
    cache_read_tokens: wire.cache_read_input_tokens ?? usage.cache_read_tokens,
    cache_write_tokens: wire.cache_creation_input_tokens ?? usage.cache_write_tokens,
  };
}

/**
 * The Messages API stop reason, normalised. `model_context_window_exceeded` is
 * `max_tokens` (the output was cut short); `pause_turn` (a server-tool turn paused; panto
 * offers no server tools) and reasons newer than this code are `end_turn`, or `tool_use`
 * when the message has tool calls.
 */
export function normaliseAnthropicStopReason(raw: string | undefined, hasToolCalls: boolean): StopReason {
  switch (raw) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
      return raw;
    case 'model_context_window_exceeded':
      return 'max_tokens';
    default:
      return hasToolCalls ? 'tool_use' : 'end_turn';
  }
}

type AnthropicSDK = typeof import('@anthropic-ai/sdk');
const anthropicSDK = lazyModule<AnthropicSDK>(() => import('@anthropic-ai/sdk'));

/** The SDK's failure as the call's error: HTTP errors and error events keep status, type and the API's message. */
function anthropicError(error: unknown): Error {
  return providerErrorFromSDK(error, anthropicErrorRules(anthropicSDK.loaded));
}

/** How the Anthropic SDK's errors read; `sdk` is undefined until the SDK was loaded. */
export function anthropicErrorRules(sdk: AnthropicSDK | undefined): SDKErrorRules<InstanceType<AnthropicSDK['APIError']>> {
  return {
    provider: 'anthropic',
    classes: sdk,
    describe: (apiError) => ({ type: apiError.type ?? undefined, message: apiError.apiMessage ?? apiError.message }),
    retryableTypes: ANTHROPIC_RETRYABLE_TYPES,
  };
}

function isNonEmptyObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
}
