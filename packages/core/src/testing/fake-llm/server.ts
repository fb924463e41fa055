import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicFrames } from './anthropic-frames.js';
import { defaultErrorType, errorBody, errorFrame, type Protocol } from './frames.js';
import { openaiFrames } from './openai-frames.js';
import type { FakeRawReply, FakeReply, RecordedRequest } from './types.js';

type QueuedReply = { kind: 'scripted'; reply: FakeReply } | { kind: 'raw'; reply: FakeRawReply };

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
