import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** A response sent exactly as given (for recorded SSE fixtures). */
export interface FakeRawReply {
  status: number;
  headers?: Record<string, string>;
  body: string;
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

type QueuedReply = { kind: 'scripted'; reply: FakeReply } | { kind: 'raw'; reply: FakeRawReply };
type Protocol = 'anthropic' | 'openai';

/** A piece of a streamed response; deltas are what `dropAfterDeltas`, `hang` and `errorEvent` count. */
interface Frame {
  kind: 'head' | 'delta' | 'tail';
  data: string;
}

/**
 * An LLM API on loopback that answers with scripted replies, one per request, in wire-exact
 * SSE for Anthropic Messages and OpenAI Chat Completions. Point the real SDK clients at it.
 * With an empty queue it answers 500 (with `x-should-retry: false`) saying so.
 *
 * @example
 * const server = await FakeLLMServer.start();
 * server.enqueue({ toolCalls: [{ name: 'clock', input: {} }] });
 * server.enqueue({ text: 'It is noon.', usage: { input: 12, output: 4 } });
 * const provider = new AnthropicMessagesProvider({ model: 'claude-x', apiKey: 'test', baseURL: server.anthropicBaseURL });
 * // … run the agent …
 * expect(server.requests[1]?.body).toMatchObject({ model: 'claude-x' });
 * await server.close();
 */
export class FakeLLMServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly #server: Server;
  readonly #queue: QueuedReply[] = [];
  readonly #holds = new Set<() => void>();
  readonly #pauses = new Set<() => void>();
  #ids = 0;

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.url = url;
  }

  /** Starts a server on 127.0.0.1 on a free port. */
  static async start(): Promise<FakeLLMServer> {
    let instance: FakeLLMServer | undefined;
    const server = createServer((request, response) => {
      // Requests before `listen` resolved cannot happen: the port is not known yet.
      if (!instance) {
        response.destroy();
        return;
      }
      instance.#handle(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    instance = new FakeLLMServer(server, `http://127.0.0.1:${port}`);
    return instance;
  }

  /** The Anthropic `baseURL` / `ANTHROPIC_BASE_URL` (the SDK adds `/v1/messages`). */
  get anthropicBaseURL(): string {
    return this.url;
  }

  /** The OpenAI `baseURL` / `OPENAI_BASE_URL` (`…/v1`; the SDK adds `/chat/completions`). */
  get openaiBaseURL(): string {
    return `${this.url}/v1`;
  }

  /** How many replies are still queued. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Queues the response to the next request, whichever protocol asks. */
  enqueue(...replies: FakeReply[]): void {
    for (const reply of replies) this.#queue.push({ kind: 'scripted', reply });
  }

  /** Queues a response sent byte-for-byte as given. */
  enqueueRaw(reply: FakeRawReply): void {
    this.#queue.push({ kind: 'raw', reply });
  }

  /** Replies paused by `pauseAfterDeltas` right now. */
  get paused(): number {
    return this.#pauses.size;
  }

  /** Lets every reply paused by `pauseAfterDeltas` send the rest of its stream. */
  resume(): void {
    for (const release of this.#pauses) release();
    this.#pauses.clear();
  }

  /** Stops listening and drops every open connection (held and paused ones included). */
  async close(): Promise<void> {
    for (const release of this.#holds) release();
    this.#holds.clear();
    this.resume();
    await new Promise<void>((resolve, reject) => {
      this.#server.close((error) => (error ? reject(error) : resolve()));
      this.#server.closeAllConnections();
    });
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const receivedAt = performance.now();
    const path = request.url ?? '/';
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const body = parseBody(text);
    this.requests.push({ method: request.method ?? 'GET', path, headers, body, rawBody: text, receivedAt });

    const protocol = protocolOf(request.method, path);
    if (!protocol) {
      sendJSON(response, 404, {
        error: { type: 'not_found_error', message: `the fake LLM server does not serve ${request.method} ${path}` },
      });
      return;
    }
    const next = this.#queue.shift();
    if (!next) {
      sendJSON(
        response,
        500,
        errorBody(
          protocol,
          'api_error',
          `FakeLLMServer: the reply queue is empty (request ${this.requests.length}, ${request.method} ${path}); enqueue a reply first`,
        ),
        {
          'x-should-retry': 'false',
        },
      );
      return;
    }
    if (next.kind === 'raw') {
      response.writeHead(next.reply.status, next.reply.headers ?? {});
      response.end(next.reply.body);
      return;
    }
    await this.#reply(protocol, next.reply, body, response);
  }

  async #reply(protocol: Protocol, reply: FakeReply, requestBody: unknown, response: ServerResponse): Promise<void> {
    const closed = onceClosed(response);
    if (reply.delayMs !== undefined && reply.delayMs > 0) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, reply.delayMs)), closed]);
      if (response.destroyed) return;
    }
    if (reply.status !== undefined && reply.status >= 400) {
      const retryHeaders: Record<string, string> = reply.status === 429 || reply.status >= 500 ? { 'retry-after-ms': '1' } : {};
      const body = reply.errorBody ?? errorBody(protocol, defaultErrorType(protocol, reply.status), `fake ${reply.status} error`);
      sendJSON(response, reply.status, body, { ...retryHeaders, ...reply.headers });
      return;
    }

    const model = isRecord(requestBody) && typeof requestBody.model === 'string' ? requestBody.model : 'fake-model';
    const id = ++this.#ids;
    const frames = protocol === 'anthropic' ? anthropicFrames(reply, model, id) : openaiFrames(reply, model, id, wantsUsage(requestBody));
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      ...reply.headers,
    });
    response.flushHeaders();

    const totalDeltas = frames.filter((frame) => frame.kind === 'delta').length;
    const hangAt = reply.hang ? Math.min(1, totalDeltas) : -1;
    const errorAt = reply.errorEvent ? Math.min(reply.errorEvent.afterDeltas ?? 0, totalDeltas) : -1;
    const dropAt = reply.dropAfterDeltas !== undefined ? Math.min(reply.dropAfterDeltas, totalDeltas) : -1;
    const endAt = reply.endAfterDeltas !== undefined ? Math.min(reply.endAfterDeltas, totalDeltas) : -1;
    const pauseAt = reply.pauseAfterDeltas !== undefined ? Math.min(reply.pauseAfterDeltas, totalDeltas) : -1;
    let deltas = 0;
    let tailReached = false;
    for (const frame of frames) {
      // Interventions happen at a delta boundary: before the next delta or before the tail.
      if (frame.kind !== 'head' && !tailReached) {
        if (frame.kind === 'tail') tailReached = true;
        if (deltas === dropAt) {
          await flush(response);
          response.socket?.destroy();
          return;
        }
        if (deltas === endAt) {
          response.end();
          return;
        }
        if (deltas === errorAt) {
          response.end(errorFrame(protocol, reply.errorEvent ?? {}));
          return;
        }
        if (deltas === hangAt) {
          await flush(response);
          await this.#hold(closed, this.#holds);
          return;
        }
        if (deltas === pauseAt) {
          await flush(response);
          await this.#hold(closed, this.#pauses);
          if (response.destroyed) return;
        }
      }
      if (response.destroyed) return;
      response.write(frame.data);
      if (frame.kind === 'delta') deltas++;
    }
    response.end();
  }

  /** Waits until the client goes away, or `holds` releases it (the server closes; `resume`). */
  async #hold(closed: Promise<void>, holds: Set<() => void>): Promise<void> {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    holds.add(release);
    await Promise.race([closed, released]);
    holds.delete(release);
  }
}

function protocolOf(method: string | undefined, path: string): Protocol | undefined {
  if (method !== 'POST') return undefined;
  const pathname = path.split('?')[0];
  if (pathname === '/v1/messages') return 'anthropic';
  if (pathname === '/v1/chat/completions') return 'openai';
  return undefined;
}

function anthropicFrames(reply: FakeReply, model: string, id: number): Frame[] {
  const event = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const usage = reply.usage ?? {};
  const frames: Frame[] = [
    {
      kind: 'head',
      data: event('message_start', {
        type: 'message_start',
        message: {
          id: `msg_fake_${id}`,
          type: 'message',
          role: 'assistant',
          content: [],
          model,
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input ?? 0,
            cache_creation_input_tokens: usage.cacheWrite ?? 0,
            cache_read_input_tokens: usage.cacheRead ?? 0,
            output_tokens: 1,
          },
        },
      }),
    },
  ];
  let index = 0;
  let pinged = false;
  const startBlock = (block: unknown): void => {
    frames.push({
      kind: 'head',
      data: event('content_block_start', { type: 'content_block_start', index, content_block: block }),
    });
    if (!pinged) {
      frames.push({ kind: 'head', data: event('ping', { type: 'ping' }) });
      pinged = true;
    }
  };
  const delta = (value: unknown): void => {
    frames.push({
      kind: 'delta',
      data: event('content_block_delta', { type: 'content_block_delta', index, delta: value }),
    });
  };
  const stopBlock = (): void => {
    frames.push({ kind: 'head', data: event('content_block_stop', { type: 'content_block_stop', index }) });
    index++;
  };
  if (reply.thinking) {
    startBlock({ type: 'thinking', thinking: '', signature: '' });
    for (const piece of textPieces(reply.thinking.thinking)) delta({ type: 'thinking_delta', thinking: piece });
    delta({ type: 'signature_delta', signature: reply.thinking.signature });
    stopBlock();
  }
  if (reply.text !== undefined && reply.text !== '') {
    startBlock({ type: 'text', text: '' });
    for (const piece of textPieces(reply.text)) delta({ type: 'text_delta', text: piece });
    stopBlock();
  }
  for (const [callIndex, call] of (reply.toolCalls ?? []).entries()) {
    startBlock({ type: 'tool_use', id: call.id ?? `toolu_fake_${id}_${callIndex}`, name: call.name, input: {} });
    delta({ type: 'input_json_delta', partial_json: '' });
    for (const piece of jsonPieces(argumentsOf(call))) delta({ type: 'input_json_delta', partial_json: piece });
    stopBlock();
  }
  const stopReason = reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
  frames.push({
    kind: 'tail',
    data: event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: {
        input_tokens: usage.input ?? 0,
        cache_creation_input_tokens: usage.cacheWrite ?? 0,
        cache_read_input_tokens: usage.cacheRead ?? 0,
        output_tokens: usage.output ?? 0,
      },
    }),
  });
  frames.push({ kind: 'tail', data: event('message_stop', { type: 'message_stop' }) });
  return frames;
}

function openaiFrames(reply: FakeReply, model: string, id: number, includeUsage: boolean): Frame[] {
  const base = {
    id: `chatcmpl-fake-${id}`,
    object: 'chat.completion.chunk',
    created: 1_767_225_600,
    model,
    system_fingerprint: 'fp_fake',
  };
  const chunk = (delta: unknown, finishReason: string | null = null): string =>
    `data: ${JSON.stringify({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    })}\n\n`;
  const frames: Frame[] = [{ kind: 'head', data: chunk({ role: 'assistant', content: '', refusal: null }) }];
  if (reply.thinking) {
    for (const piece of textPieces(reply.thinking.thinking)) frames.push({ kind: 'delta', data: chunk({ reasoning_content: piece }) });
  }
  for (const piece of textPieces(reply.text ?? '')) frames.push({ kind: 'delta', data: chunk({ content: piece }) });
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    frames.push({
      kind: 'delta',
      data: chunk({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_fake_${id}_${index}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    });
    for (const piece of jsonPieces(argumentsOf(call))) {
      frames.push({ kind: 'delta', data: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }) });
    }
  }
  const finishReason = reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
  frames.push({ kind: 'tail', data: chunk({}, finishReason) });
  if (includeUsage) {
    const usage = reply.usage ?? {};
    const prompt = (usage.input ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
    const output = usage.output ?? 0;
    frames.push({
      kind: 'tail',
      data: `data: ${JSON.stringify({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: output,
          total_tokens: prompt + output,
          prompt_tokens_details: {
            cached_tokens: usage.cacheRead ?? 0,
            audio_tokens: 0,
            ...(usage.cacheWrite !== undefined ? { cache_write_tokens: usage.cacheWrite } : {}),
          },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
      })}\n\n`,
    });
  }
  frames.push({ kind: 'tail', data: 'data: [DONE]\n\n' });
  return frames;
}

function errorFrame(protocol: Protocol, error: { type?: string; message?: string }): string {
  if (protocol === 'anthropic') {
    const body = {
      type: 'error',
      error: { type: error.type ?? 'overloaded_error', message: error.message ?? 'Overloaded' },
    };
    return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
  }
  const body = {
    error: {
      message: error.message ?? 'The server had an error while processing your request.',
      type: error.type ?? 'server_error',
      param: null,
      code: null,
    },
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

function errorBody(protocol: Protocol, type: string, message: string): unknown {
  return protocol === 'anthropic' ? { type: 'error', error: { type, message } } : { error: { message, type, param: null, code: null } };
}

function defaultErrorType(protocol: Protocol, status: number): string {
  const anthropic: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  if (protocol === 'anthropic') return anthropic[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  if (status === 429) return 'rate_limit_exceeded';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** Word-sized pieces: "Hello there" → ["Hello", " there"]. */
function textPieces(text: string): string[] {
  return text === '' ? [] : text.split(/(?=\s)/);
}

function argumentsOf(call: NonNullable<FakeReply['toolCalls']>[number]): string {
  return call.arguments ?? JSON.stringify(call.input);
}

/** A JSON text in three roughly equal pieces, as streamed arguments arrive. */
function jsonPieces(json: string): string[] {
  const size = Math.max(1, Math.ceil(json.length / 3));
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) pieces.push(json.slice(i, i + size));
  return pieces;
}

function wantsUsage(body: unknown): boolean {
  if (!isRecord(body)) return false;
  const options = body.stream_options;
  return isRecord(options) && options.include_usage === true;
}

function sendJSON(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function onceClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => response.once('close', () => resolve()));
}

/** Resolves once what was written so far has been handed to the socket. */
function flush(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => response.write('', () => resolve()));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
