import type { AssistantBlock, StopReason, Usage } from '../../../messages.js';
import type { Provider } from '../../../providers/provider.js';
import type { FakeLLMServer } from '../../fake-llm/server.js';
import type { FakeRawReply, FakeReply, RecordedRequest } from '../../fake-llm/types.js';

/**
 * The fake server a provider's cases run against: FakeLLMServer (Anthropic, OpenAI), or
 * FakeBedrockServer (Bedrock). One queued reply per request, the same replies on every wire.
 */
export interface ConformanceServer {
  readonly requests: readonly RecordedRequest[];
  enqueue(...replies: FakeReply[]): void;
  enqueueRaw(reply: FakeRawReply): void;
  close(): Promise<void>;
}

// What `describeProviderConformance` needs to know about one provider: how to build it, and
// what its wire does where wires legitimately differ.

/** Connection settings a contract case asks of the provider under test. */
export interface ProviderConformanceOptions {
  /** Retries of 408/409/429/5xx by the SDK (default: the provider's own). */
  maxRetries?: number;
  /** The request timeout and the longest silence allowed in an open stream. */
  timeoutMs?: number;
  maxTokens?: number;
  temperature?: number;
}

/** What a provider's wire protocol does, where protocols legitimately differ. */
export interface WireFacts {
  /** The path the provider posts to on the fake server: `/v1/messages`. */
  readonly path: string;
  /** Fields every request body carries to ask for a stream: `{ stream: true }` (`{}` where the path says it). */
  readonly streaming: Record<string, unknown>;
  /** The content type of a streamed response: `text/event-stream; charset=utf-8`. */
  readonly streamContentType: string;
  /**
   * How the server asks the client to wait before a retry, and how long the SDK then sleeps:
   * `[min, max]` milliseconds for a hint of `ms` — `[ms, ms]` for an SDK that sleeps exactly
   * that (Anthropic's, OpenAI's `retry-after-ms`); a range for one that takes the hint as a
   * floor under its own jittered backoff (the AWS SDK's `x-amz-retry-after`).
   */
  readonly retryAfter: { headers(ms: number): Record<string, string>; delay(ms: number): readonly [min: number, max: number] };
  /** The raw stop reasons the fake server sends for a reply that ends the turn, and for one that calls tools. */
  readonly rawStopReasons: { readonly endTurn: string; readonly toolUse: string };
  /** Every wire stop reason the provider knows, with what it normalises to. */
  readonly stopReasons: readonly (readonly [raw: string, normalised: StopReason])[];
  /**
   * When the wire says a tool call's arguments are complete: `'each'` as its own block
   * ends (Anthropic `content_block_stop`), `'finish'` all at once at the end of the
   * message (OpenAI, which has only `finish_reason`).
   */
  readonly toolCallsEnd: 'each' | 'finish';
  /**
   * `'signed'`: streamed thinking carries a signature and goes back to the wire verbatim
   * (Anthropic). `'unsigned'`: reasoning is kept with an empty signature and never sent
   * back (OpenAI-compatible `reasoning_content`).
   */
  readonly thinking: 'signed' | 'unsigned';
  /** 5xx statuses the vendor answers with when it is overloaded or failing, which its SDK retries (Anthropic's 529 among them). */
  readonly serverErrors: readonly number[];
  /** The error type of the fake server's default 429 body for this wire. */
  readonly rateLimitType: string;
  /** A 400 body in the wire's shape, and the `type` and message text the ProviderError must carry. */
  readonly badRequest: { readonly body: unknown; readonly type: string; readonly message: string };
  /** A stream whose first event is not the wire's (not JSON; not an event-stream message). */
  readonly malformedStream: string | Uint8Array;
  /** The tool-call ids in a request body: the calls' and the results', each in order. Must not throw. */
  toolCallIds(body: unknown): { calls: string[]; results: string[] };
  /** Whether the wire accepts `id` as a tool-call id. Must not throw. */
  acceptsToolCallId(id: string): boolean;
}

/** A recorded response body: SSE text, or event-stream bytes. */
type Body = string | Uint8Array;

/**
 * Recorded response bodies (replayed byte for byte) whose content the contract fixes,
 * and the values that differ by wire. Keep them as files in `__fixtures__/`.
 */
export interface RecordedResponses {
  /** The text `Hello! How can I help?` in the deltas `Hello`, `! How can`, ` I help?`, ending the turn. */
  readonly text: { readonly body: Body; readonly usage: Usage };
  /**
   * The text `Okay, let me check the weather in San Francisco.` in the deltas
   * `Okay, let me check`, ` the weather in San Francisco.`, then one call `get_weather`
   * whose arguments arrive as `{"location":`, `"San Fra`, `ncisco, CA"`, `, "unit": "fah`,
   * `renheit"}`; stop reason: tool use.
   */
  readonly toolCall: { readonly body: Body; readonly id: string; readonly usage: Usage };
  /**
   * Two calls and no text: `get_weather` with arguments `{"lo`, `cation": "Pa`, `ris"}`,
   * then `get_time` with `{"timezone"`, `: "Europe/Paris"}`; stop reason: tool use.
   */
  readonly parallelToolCalls: { readonly body: Body; readonly ids: readonly [string, string]; readonly usage: Usage };
  /**
   * Thinking (in the given deltas) before the rest of the reply, and the finished message's
   * content as the provider must keep it. Absent for a wire with no thinking.
   */
  readonly thinking?: {
    readonly body: Body;
    readonly deltas: readonly string[];
    readonly content: readonly AssistantBlock[];
    readonly usage: Usage;
    readonly stopReason: StopReason;
  };
  /** The text `Cached and ready.` with cache reads (and writes, where the wire reports them). */
  readonly cacheUsage: { readonly body: Body; readonly usage: Usage };
  /** A reply the output limit cut short, and the content the provider must keep of it. */
  readonly maxTokens: {
    readonly body: Body;
    readonly content: readonly AssistantBlock[];
    readonly rawStopReason: string;
  };
  /** The text `The answer`, ` begins here`, then the wire's error event of the given type and message. */
  readonly errorMidStream: { readonly body: Body; readonly type: string; readonly message: string };
}

/**
 * The exact bodies the provider sends for the suite's standard conversations (see
 * `provider-conformance-requests.ts` for each conversation), compared with `toStrictEqual`.
 */
export interface ExpectedRequests {
  /** System messages (replace, then append), a user prompt, one tool; `maxTokens: 1024`, `temperature: 0.5`. */
  readonly basic: unknown;
  /** Three tool calls after text, and their results: one plain, one an error, one empty. */
  readonly toolResults: unknown;
  /** A tool call, its (error) result, then a new prompt. */
  readonly promptAfterToolResults: unknown;
  /** A system prompt, a compaction, then a prompt. */
  readonly compaction: unknown;
  /** Two user messages in a row, two assistant messages in a row, a user message. */
  readonly alternation: unknown;
  /** A session written by other providers: foreign and over-long tool-call ids, thinking of both kinds, empty replies. */
  readonly foreignSession: unknown;
}

/** What the agent-level cases expect of the wire. */
export interface ExpectedAgentRequests {
  /** The body (compared byte for byte as JSON) of the request after resuming the suite's two-turn session. */
  readonly resumed: unknown;
  /** What the tool-loop request of the first turn must match (`toMatchObject`): the same prefix as `resumed`. */
  readonly toolLoop: unknown;
}

/** Everything the contract needs to know about one provider; `Server` is the fake it talks to. */
export interface ProviderConformanceHarness<Server extends ConformanceServer = FakeLLMServer> {
  /** The fake server's class (`FakeLLMServer`, `FakeBedrockServer`): a new one starts for every case. */
  readonly server: { start(): Promise<Server> };
  /** The provider's `name`, recorded on every message it writes. */
  readonly name: string;
  /** The model `create` configures. */
  readonly model: string;
  /**
   * A new provider talking to `server` (its base URL for this wire, any API key), with
   * `options` applied. Called once or more per case; must not start anything itself.
   */
  create(server: Server, options?: ProviderConformanceOptions): Provider;
  readonly wire: WireFacts;
  readonly recorded: RecordedResponses;
  readonly requests: ExpectedRequests;
  readonly agent: ExpectedAgentRequests;
}
