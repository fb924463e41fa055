/**
 * One scripted response of {@link FakeLLMServer}. The same reply is rendered in whichever
 * protocol asks for it: Anthropic Messages (`POST /v1/messages`) or OpenAI Chat Completions
 * (`POST /v1/chat/completions`).
 */
export interface FakeReply {
  /** Assistant text, streamed in word-sized deltas. */
  text?: string;
  /**
   * Tool calls, after the text. Ids default to `toolu_fake_<reply>_<i>` / `call_fake_<reply>_<i>`.
   * The arguments stream as `JSON.stringify(input)`, or as `arguments` exactly when it is
   * given (e.g. broken JSON).
   */
  toolCalls?: { id?: string; name: string; input: Record<string, unknown>; arguments?: string }[];
  /**
   * A thinking block before the text. Anthropic: a `thinking` block with `thinking_delta`s
   * and a `signature_delta`. OpenAI: `delta.reasoning_content` (as vLLM and DeepSeek send it).
   */
  thinking?: { thinking: string; signature: string };
  /**
   * Token usage, in panto's terms: `input` excludes cached tokens. Anthropic reports them as
   * they are; OpenAI reports `prompt_tokens = input + cacheRead + cacheWrite`, with
   * `cached_tokens = cacheRead` (and `cache_write_tokens` when `cacheWrite` is set).
   * The OpenAI usage chunk is sent only when the request asks for it
   * (`stream_options.include_usage`), as OpenAI does.
   */
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  /** The wire stop reason (`end_turn`, `refusal`… / `stop`, `length`…). Defaults by content. */
  stopReason?: string;
  /** An HTTP error status (>= 400): a JSON error body is sent instead of a stream. */
  status?: number;
  /** The error body for `status`; a protocol-shaped body with a default message otherwise. */
  errorBody?: unknown;
  /**
   * Extra response headers. Error replies with status 429 or >= 500 carry `retry-after-ms: 1`
   * unless this overrides it, so the SDKs' retries are instant in tests.
   */
  headers?: Record<string, string>;
  /** Send headers and the first delta, then hold until the client disconnects. */
  hang?: boolean;
  /**
   * Send this many deltas, then pause until {@link FakeLLMServer.resume} (or until the client
   * disconnects), then send the rest: a model that is still writing when the test acts.
   */
  pauseAfterDeltas?: number;
  /** Wait this long before answering at all. */
  delayMs?: number;
  /** Destroy the connection after this many deltas (a dropped stream mid-message). */
  dropAfterDeltas?: number;
  /**
   * End the response cleanly after this many deltas, without the rest of the message or the
   * wire's completion marker (`message_stop` / `finish_reason`): a stream that closes early.
   */
  endAfterDeltas?: number;
  /**
   * Send an error event after `afterDeltas` deltas (default 0) and end the stream.
   * Anthropic: `event: error` with `{type:'error', error:{type, message}}`;
   * OpenAI: a `data: {"error":{…}}` chunk. Type defaults to `overloaded_error` / `server_error`.
   */
  errorEvent?: { type?: string; message?: string; afterDeltas?: number };
}

/** A response sent exactly as given (for recorded SSE fixtures, or encoded event-stream frames). */
export interface FakeRawReply {
  status: number;
  headers?: Record<string, string>;
  body: string | Uint8Array;
}

/** A request the fake server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
  /** The body exactly as received, for byte-for-byte assertions. */
  rawBody: string;
  /** When the whole request had arrived: `performance.now()` milliseconds. */
  receivedAt: number;
}
