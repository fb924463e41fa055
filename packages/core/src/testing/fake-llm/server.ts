import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicFrames } from './anthropic-frames.js';
import { defaultErrorType, errorBody, errorFrame, type Protocol } from './frames.js';
import { openaiFrames } from './openai-frames.js';
import { ReplyQueue, waitOutDelay, type ReplySink } from './reply-queue.js';
import type { FakeRawReply, FakeReply, RecordedRequest } from './types.js';

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
  readonly #replies = new ReplyQueue();
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
    return this.#replies.queued;
  }

  /** Queues the response to the next request, whichever protocol asks. */
  enqueue(...replies: FakeReply[]): void {
    this.#replies.enqueue(...replies);
  }

  /** Queues a response sent byte-for-byte as given. */
  enqueueRaw(reply: FakeRawReply): void {
    this.#replies.enqueueRaw(reply);
  }

  /** Replies paused by `pauseAfterDeltas` right now. */
  get paused(): number {
    return this.#replies.paused;
  }

  /** Lets every reply paused by `pauseAfterDeltas` send the rest of its stream. */
  resume(): void {
    this.#replies.resume();
  }

  /** Stops listening and drops every open connection (held and paused ones included). */
  async close(): Promise<void> {
    this.#replies.releaseAll();
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
    const next = this.#replies.next();
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
    const sink = responseSink(response);
    if (!(await waitOutDelay(reply, sink))) return;
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
    await this.#replies.play(frames, reply, sink, () => errorFrame(protocol, reply.errorEvent ?? {}));
  }
}

/** An HTTP/1.1 response as the place a reply's frames go. */
function responseSink(response: ServerResponse): ReplySink {
  const closed = new Promise<void>((resolve) => response.once('close', () => resolve()));
  return {
    get destroyed() {
      return response.destroyed;
    },
    closed,
    write: (data) => response.write(data),
    end: (data) => (data === undefined ? response.end() : response.end(data)),
    flush: () => new Promise((resolve) => response.write('', () => resolve())),
    drop: () => response.socket?.destroy(),
  };
}

function protocolOf(method: string | undefined, path: string): Protocol | undefined {
  if (method !== 'POST') return undefined;
  const pathname = path.split('?')[0];
  if (pathname === '/v1/messages') return 'anthropic';
  if (pathname === '/v1/chat/completions') return 'openai';
  return undefined;
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
