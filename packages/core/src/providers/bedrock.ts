import type { BedrockRuntimeClient, ConverseStreamCommandInput, ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { ProviderError } from '../errors.js';
import type { StopReason } from '../messages.js';
import { bedrockErrorRules, providerErrorFromAWS } from './bedrock-error.js';
import { toBedrockRequest, type BedrockRequestSettings } from './bedrock-request.js';
import type { MessageAssembler } from './message-assembler.js';
import type { Provider, ProviderCallOptions, ProviderEvent, ProviderRequest } from './provider.js';
import type { ProviderOptions } from './provider-options.js';
import { lazyClient, lazyModule } from './sdk-client.js';
import { DEFAULT_TIMEOUT_MS, streamWire } from './wire-common.js';

/** AWS credentials given outright (tests, an embedder's own); otherwise the SDK's default chain finds them. */
export interface BedrockCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

/**
 * The Bedrock provider's options: the model — a Bedrock model id (`amazon.nova-pro-v1:0`) or
 * inference profile id (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`) —, `maxTokens` (the
 * model's own maximum when absent; 8192 plus the budget with thinking), and:
 */
export interface BedrockConverseOptions extends ProviderOptions {
  /** The AWS region; default the SDK's (`AWS_REGION`, else the profile's region). */
  region?: string | undefined;
  /**
   * The Bedrock Runtime endpoint (a VPC endpoint, a fake server); default the SDK's, which
   * honours `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` and `AWS_ENDPOINT_URL`.
   */
  endpoint?: string | undefined;
  /** Default: the SDK's chain — environment variables, SSO, a profile (`AWS_PROFILE`), the Lambda or ECS role. */
  credentials?: BedrockCredentials | undefined;
  /** Claude's extended thinking with this budget (must be below `maxTokens`). Off when absent. */
  thinking?: { budgetTokens: number } | undefined;
  /** Cache points on the system prompt, the tools and the newest message. Default: where the model takes them. */
  promptCaching?: boolean | undefined;
}

/** How much later than the idle watchdog the SDK's own inactivity timeout fires. */
const SDK_TIMEOUT_MARGIN_MS = 1000;

type BedrockSDK = typeof import('@aws-sdk/client-bedrock-runtime');
const bedrockSDK = lazyModule<BedrockSDK>(() => import('@aws-sdk/client-bedrock-runtime'));

/**
 * A model on Amazon Bedrock through the Converse API (`ConverseStream`: one wire for every
 * Bedrock model), on the official AWS SDK. No key of panto's own: the SDK's credential chain
 * and the role's IAM policy decide what may be called.
 *
 * Maps the conversation as {@link toBedrockRequest} describes; streams text, reasoning and
 * tool calls as they arrive; ends with one `message-end` carrying usage (input, output,
 * cache read, cache write — Bedrock reports them disjoint) and the normalised stop reason,
 * or with one `error` event. See docs/providers.md.
 *
 * @example
 * const provider = new BedrockConverseProvider({ model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', region: 'us-east-1' });
 * const agent = new Agent({ provider }, { store });
 */
export class BedrockConverseProvider implements Provider {
  readonly name = 'bedrock';
  readonly model: string;
  readonly #client: () => Promise<BedrockRuntimeClient>;
  readonly #settings: BedrockRequestSettings;
  readonly #idleMs: number;

  constructor(options: BedrockConverseOptions) {
    this.model = options.model;
    const budget = options.thinking?.budgetTokens;
    const maxTokens = options.maxTokens ?? (budget === undefined ? undefined : DEFAULT_BEDROCK_THINKING_MAX_TOKENS + budget);
    if (budget !== undefined && maxTokens !== undefined && budget >= maxTokens) {
      throw new RangeError(`thinking.budgetTokens (${budget}) must be less than maxTokens (${maxTokens})`);
    }
    this.#settings = { model: options.model, maxTokens, temperature: options.temperature, thinking: options.thinking, promptCaching: options.promptCaching };
    this.#idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const config = {
      ...(options.region !== undefined ? { region: options.region } : {}),
      ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
      ...(options.credentials !== undefined ? { credentials: awsCredentials(options.credentials) } : {}),
      maxAttempts: (options.maxRetries ?? 2) + 1,
      // The SDK's timeout covers the wait for the response to start; once events flow, the
      // stream's idle watchdog (streamWire) judges silence, so the SDK's fires a little later.
      requestHandler: { requestTimeout: this.#idleMs + SDK_TIMEOUT_MARGIN_MS },
    };
    this.#client = lazyClient(bedrockSDK, (sdk) => new sdk.BedrockRuntimeClient(config));
  }

  stream(request: ProviderRequest, options: ProviderCallOptions): AsyncGenerator<ProviderEvent> {
    const state: StreamState = { blocks: new Map() };
    let region: string | undefined;
    return streamWire<ConverseStreamOutput>(
      {
        provider: this.name,
        model: this.model,
        idleMs: this.#idleMs,
        request,
        open: async (signal) => {
          const client = await this.#client();
          // Only for naming the region in an error message: unknown is said as such.
          region = await client.config.region().catch(() => undefined);
          return openStream(client, { modelId: this.model, ...toBedrockRequest(request, this.#settings) }, signal);
        },
        apply: (event, assembler) => applyEvent(event, assembler, state),
        finished: (assembler) =>
          state.stopReason === undefined
            ? undefined
            : { stopReason: normaliseBedrockStopReason(state.stopReason, assembler.hasToolCalls), raw: state.stopReason },
        toError: (error) => providerErrorFromAWS(error, bedrockErrorRules(this.model, region)),
      },
      options.signal,
    );
  }
}

function awsCredentials({ accessKeyId, secretAccessKey, sessionToken }: BedrockCredentials): {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
} {
  return { accessKeyId, secretAccessKey, ...(sessionToken !== undefined ? { sessionToken } : {}) };
}

/** Output tokens asked for with thinking when `maxTokens` is not set, on top of the thinking budget. */
export const DEFAULT_BEDROCK_THINKING_MAX_TOKENS = 8192;

/** Sends the request; the stream the caller iterates, and the controller that cancels it. */
async function openStream(
  client: BedrockRuntimeClient,
  input: ConverseStreamCommandInput,
  signal: AbortSignal,
): Promise<AsyncIterable<ConverseStreamOutput> & { controller: AbortController }> {
  const sdk = await bedrockSDK.load();
  const controller = new AbortController();
  const abort = (): void => controller.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  const output = await client.send(new sdk.ConverseStreamCommand(input), { abortSignal: controller.signal });
  const stream = output.stream;
  if (stream === undefined) throw new ProviderError('bedrock', 'bedrock: the response carried no event stream', {});
  return { [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator](), controller };
}

interface StreamState {
  /** Wire content-block index → content index. */
  blocks: Map<number, number>;
  stopReason?: string | undefined;
}

/** Feeds one ConverseStream event to the assembler. Text and reasoning blocks have no start event: their first delta opens them. */
function applyEvent(event: ConverseStreamOutput, assembler: MessageAssembler, state: StreamState): void {
  if (event.contentBlockStart) {
    const { start, contentBlockIndex = 0 } = event.contentBlockStart;
    if (start?.toolUse) state.blocks.set(contentBlockIndex, assembler.openToolCall(start.toolUse.toolUseId, start.toolUse.name ?? ''));
  } else if (event.contentBlockDelta) {
    const { delta, contentBlockIndex = 0 } = event.contentBlockDelta;
    if (delta) applyDelta(delta, contentBlockIndex, assembler, state);
  } else if (event.contentBlockStop) {
    const index = state.blocks.get(event.contentBlockStop.contentBlockIndex ?? 0);
    if (index !== undefined) assembler.close(index);
  } else if (event.messageStop) {
    state.stopReason = event.messageStop.stopReason ?? 'end_turn';
    assembler.closeAll();
  } else if (event.metadata?.usage) {
    const usage = event.metadata.usage;
    assembler.usage = {
      input_tokens: usage.inputTokens ?? 0,
      output_tokens: usage.outputTokens ?? 0,
      cache_read_tokens: usage.cacheReadInputTokens ?? 0,
      cache_write_tokens: usage.cacheWriteInputTokens ?? 0,
    };
  }
  // messageStart carries only the role; event types newer than this code are ignored.
}

type Delta = NonNullable<NonNullable<ConverseStreamOutput['contentBlockDelta']>['delta']>;

function applyDelta(delta: Delta, wireIndex: number, assembler: MessageAssembler, state: StreamState): void {
  const open = (opener: () => number): number => {
    let index = state.blocks.get(wireIndex);
    if (index === undefined) {
      index = opener();
      state.blocks.set(wireIndex, index);
    }
    return index;
  };
  if (delta.text !== undefined) {
    assembler.appendText(
      open(() => assembler.openText()),
      delta.text,
    );
  } else if (delta.toolUse) {
    assembler.appendToolCall(
      open(() => assembler.openToolCall(undefined, '')),
      delta.toolUse.input ?? '',
    );
  } else if (delta.reasoningContent) {
    const reasoning = delta.reasoningContent;
    if (reasoning.redactedContent !== undefined) {
      if (!state.blocks.has(wireIndex)) state.blocks.set(wireIndex, assembler.addRedactedThinking(Buffer.from(reasoning.redactedContent).toString('base64')));
      return;
    }
    const index = open(() => assembler.openThinking());
    if (reasoning.text !== undefined) assembler.appendThinking(index, reasoning.text);
    if (reasoning.signature !== undefined) assembler.appendSignature(index, reasoning.signature);
  }
  // Citations, images and tool-result deltas: not requested, not kept.
}

/**
 * The Converse stop reason, normalised: `guardrail_intervened` and `content_filtered` are
 * `refusal`; `model_context_window_exceeded` is `max_tokens` (the output was cut short);
 * `end_turn` with tool calls is `tool_use` (some models say so); `malformed_tool_use`,
 * `malformed_model_output` and reasons newer than this code are `tool_use` when the message
 * has tool calls, else `end_turn`.
 */
export function normaliseBedrockStopReason(raw: string, hasToolCalls: boolean): StopReason {
  switch (raw) {
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
      return raw;
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'refusal';
    default:
      return hasToolCalls ? 'tool_use' : 'end_turn';
  }
}
