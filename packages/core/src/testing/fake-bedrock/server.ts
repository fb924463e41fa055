import { createServer, type Http2Server, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { ReplyQueue, waitOutDelay, type ReplySink } from '../fake-llm/reply-queue.js';
import type { FakeRawReply, FakeReply, RecordedRequest } from '../fake-llm/types.js';
import { BEDROCK_STREAM_HEADERS, bedrockErrorFrame, bedrockErrorType, bedrockFrames } from './frames.js';
import { checkSignature, type FakeAWSCredentials } from './sigv4.js';

export interface FakeBedrockServerOptions {
  /** The region requests must be signed for. Default `us-east-1`. */
  region?: string;
  /** The only credentials it accepts. Default {@link FAKE_BEDROCK_CREDENTIALS}. */
  credentials?: FakeAWSCredentials;
}

/** A request the fake Bedrock server received. */
export interface BedrockRecordedRequest extends RecordedRequest {
  /** The model or inference profile id of the path (`/model/<id>/converse-stream`), decoded. */
  modelId: string | undefined;
  /** Why it was refused before it was read (a signature AWS would not accept); undefined when it was signed right. */
  refused: string | undefined;
}

/** The credentials a {@link FakeBedrockServer} accepts unless told otherwise. */
export const FAKE_BEDROCK_CREDENTIALS: FakeAWSCredentials = { accessKeyId: 'AKIAFAKEBEDROCK00001', secretAccessKey: 'fake-bedrock-secret-access-key' };

const CONVERSE_STREAM = /^\/model\/([^/]+)\/converse-stream$/;

/**
 * Amazon Bedrock Runtime on loopback, as the AWS SDK's client reaches it: HTTP/2 cleartext
 * (the client's default handler), SigV4-signed requests checked against the server's
 * credentials and region (a request AWS would refuse gets 403 and the error type AWS sends),
 * `ConverseStream` answered in `application/vnd.amazon.eventstream` frames, HTTP errors as a
 * status with `x-amzn-errortype` and a JSON `{ message }`. One queued {@link FakeReply} per
 * request, as for FakeLLMServer: the same replies, rendered on Bedrock's wire. An empty
 * queue answers 400 saying so.
 *
 * @example
 * const server = await FakeBedrockServer.start();
 * server.enqueue({ text: 'Hello.', usage: { input: 12, output: 3 } });
 * const provider = new BedrockConverseProvider({ model: 'amazon.nova-pro-v1:0', region: server.region, endpoint: server.url, credentials: server.credentials });
 * // or, for a child process or code that builds its own client: { ...process.env, ...server.env }
 * await server.close();
 */
export class FakeBedrockServer {
  /** Every request received, in order, refused ones included. */
  readonly requests: BedrockRecordedRequest[] = [];
  /** `http://127.0.0.1:PORT`: the endpoint (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`). */
  readonly url: string;
  readonly region: string;
  readonly credentials: FakeAWSCredentials;
  readonly #server: Http2Server;
  readonly #sessions: Set<Http2Session>;
  readonly #replies = new ReplyQueue();
  #ids = 0;

  private constructor(server: Http2Server, sessions: Set<Http2Session>, url: string, options: Required<FakeBedrockServerOptions>) {
    this.#server = server;
    this.#sessions = sessions;
    this.url = url;
    this.region = options.region;
    this.credentials = options.credentials;
  }

  /** Starts a server on 127.0.0.1 on a free port. */
  static async start(options: FakeBedrockServerOptions = {}): Promise<FakeBedrockServer> {
    let instance: FakeBedrockServer | undefined;
    const sessions = new Set<Http2Session>();
    const server = createServer();
    server.on('session', (session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
    });
    server.on('stream', (stream, headers) => {
      if (!instance) {
        stream.close();
        return;
      }
      instance.#handle(stream, headers).catch(() => stream.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    instance = new FakeBedrockServer(server, sessions, `http://127.0.0.1:${port}`, {
      region: options.region ?? 'us-east-1',
      credentials: options.credentials ?? FAKE_BEDROCK_CREDENTIALS,
    });
    return instance;
  }

  /** The environment that points the AWS SDK (in this process or a child) at this server, signed with its credentials. */
  get env(): Record<string, string> {
    return {
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: this.url,
      AWS_REGION: this.region,
      AWS_ACCESS_KEY_ID: this.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: this.credentials.secretAccessKey,
    };
  }

  /** How many replies are still queued. */
  get queued(): number {
    return this.#replies.queued;
  }

  /** Queues the response to the next request. */
  enqueue(...replies: FakeReply[]): void {
    this.#replies.enqueue(...replies);
  }

  /** Queues a response sent byte-for-byte as given (`encodeEventStream` makes a body of events). */
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

  /** Stops listening and drops every open connection (held and paused replies included). */
  async close(): Promise<void> {
    this.#replies.releaseAll();
    for (const session of this.#sessions) session.destroy();
    await new Promise<void>((resolve, reject) => this.#server.close((error) => (error ? reject(error) : resolve())));
  }

  async #handle(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const body = await readBody(stream);
    const receivedAt = performance.now();
    const method = String(headers[':method'] ?? 'GET');
    const path = String(headers[':path'] ?? '/');
    const flat = flatHeaders(headers);
    const route = CONVERSE_STREAM.exec(path.split('?')[0] ?? '');
    const modelId = route?.[1] === undefined ? undefined : decodeURIComponent(route[1]);
    const failure = await checkSignature({ method, path, headers: flat, body }, { credentials: this.credentials, region: this.region, service: 'bedrock' });
    const rawBody = Buffer.from(body).toString('utf8');
    this.requests.push({ method, path, headers: flat, body: parseBody(rawBody), rawBody, receivedAt, modelId, refused: failure?.type });
    if (failure) return sendError(stream, 403, failure.type, failure.message);
    if (method !== 'POST' || modelId === undefined) {
      return sendError(stream, 404, 'UnknownOperationException', `the fake Bedrock server does not serve ${method} ${path}`);
    }
    const next = this.#replies.next();
    if (!next) {
      const message = `FakeBedrockServer: the reply queue is empty (request ${this.requests.length}, ${method} ${path}); enqueue a reply first`;
      return sendError(stream, 400, 'ValidationException', message);
    }
    if (next.kind === 'raw') {
      stream.respond({ ':status': next.reply.status, ...next.reply.headers });
      stream.end(next.reply.body);
      return;
    }
    await this.#reply(next.reply, stream);
  }

  async #reply(reply: FakeReply, stream: ServerHttp2Stream): Promise<void> {
    const sink = streamSink(stream);
    if (!(await waitOutDelay(reply, sink))) return;
    if (reply.status !== undefined && reply.status >= 400) {
      const type = bedrockErrorType(reply.status);
      const body = reply.errorBody ?? { message: `fake ${reply.status} ${type}` };
      stream.respond({ ':status': reply.status, 'content-type': 'application/json', 'x-amzn-errortype': errorTypeHeader(type), ...reply.headers });
      stream.end(JSON.stringify(body));
      return;
    }
    stream.respond({ ':status': 200, ...BEDROCK_STREAM_HEADERS, 'x-amzn-requestid': `fake-request-${++this.#ids}`, ...reply.headers });
    await this.#replies.play(bedrockFrames(reply, this.#ids), reply, sink, () => bedrockErrorFrame(reply.errorEvent ?? {}));
  }
}

/** `x-amzn-errortype` as Bedrock sends it: the type, then the service's namespace. */
function errorTypeHeader(type: string): string {
  return `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`;
}

function sendError(stream: ServerHttp2Stream, status: number, type: string, message: string): void {
  stream.respond({ ':status': status, 'content-type': 'application/json', 'x-amzn-errortype': errorTypeHeader(type) });
  stream.end(JSON.stringify({ message }));
}

/** An HTTP/2 stream as the place a reply's frames go; a drop kills the whole connection, as a network failure would. */
function streamSink(stream: ServerHttp2Stream): ReplySink {
  const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  return {
    get destroyed() {
      return stream.destroyed;
    },
    closed,
    write: (data) => stream.write(data),
    end: (data) => (data === undefined ? stream.end() : stream.end(data)),
    flush: () => new Promise((resolve) => stream.write(new Uint8Array(0), () => resolve())),
    drop: () => stream.session?.destroy(),
  };
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return flat;
}

function readBody(stream: ServerHttp2Stream): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
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
