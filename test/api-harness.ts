/**
 * The HTTP app on loopback for the api-* tests: the real app and providers, DynamoDB Local
 * and s3rver from the run's globalSetup, a FakeLLMServer as the model, HS256 tokens.
 */
import type { AddressInfo, Socket } from 'node:net';
import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { serve } from '@hono/node-server';
import { FakeLLMServer } from '@panto/core/testing';
import {
  createApp,
  DEFAULT_SERVICE_LIMITS,
  offeredModels,
  providerResolver,
  type AppDeps,
  type ProviderConfig,
  type RequestRecord,
  type ServiceLimits,
} from '@panto/functions';
import { hs256Verifier, signLocalToken } from '@panto/functions/local';
import { expect } from 'vitest';
import type { SessionSummaryJson } from '../functions/src/api/response-schemas.js';
import { ConformanceChecker } from './openapi-conformance.js';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';

export const TEST_SECRET = new Uint8Array(32).fill(42);

export interface ApiHarness {
  url: string;
  aws: LocalAws;
  fake: FakeLLMServer;
  /** Internal failures the app reported (it must report none for bad requests). */
  logged: unknown[];
  /** The outage lines the app reported (a backend unreachable or failing). */
  outages: string[];
  /** Client connections to the app that have closed so far: to see the server notice a client go away. */
  closedConnections(): number;
  /** The app's request records (its logs and metrics), in the order they were made. */
  records: RequestRecord[];
  token(owner: string): Promise<string>;
  /**
   * A request as `owner` (no Authorization header when owner is null). Its response is
   * checked against the API's own OpenAPI document (`GET /openapi.json`): one that departs
   * from it rejects, naming how.
   */
  call(owner: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** A new session of `owner` (`POST /sessions` with `body`), as answered (201, else the test fails). */
  newSession(owner?: string, body?: unknown): Promise<SessionSummaryJson>;
  close(): Promise<void>;
}

export async function startApi(
  name: string,
  options: {
    limits?: Partial<ServiceLimits>;
    tools?: AppDeps['tools'];
    provider?: string;
    /** Origins browsers may call from (`PANTO_CORS_ORIGINS`). */
    corsOrigins?: string[];
    /** The clients the app uses, instead of the fixtures' (to put a failing network between the app and the emulators). */
    dynamo?: DynamoDBClient;
    s3?: S3Client;
    /** The table and bucket of another harness, for a second app (another process) on the same data. */
    aws?: LocalAws;
    /** The clock of the app's turn leases (a ManualClock, to renew them without waiting). */
    clock?: AppDeps['clock'];
    /** Each owner's limits without overrides (`PANTO_BUDGET_DAILY_USD` …). */
    usageLimits?: AppDeps['usageLimits'];
    /** The operator's model prices (`PANTO_MODEL_PRICES`). */
    modelPrices?: AppDeps['modelPrices'];
    /** Spans for each request, turn and provider call (`startTracing`). */
    tracing?: AppDeps['tracing'];
  } = {},
): Promise<ApiHarness> {
  const aws = options.aws ?? (await localAws(name));
  const fake = await FakeLLMServer.start();
  const logged: unknown[] = [];
  const outages: string[] = [];
  const records: RequestRecord[] = [];
  const providerConfig: ProviderConfig = {
    provider: options.provider ?? 'anthropic',
    model: 'claude-test',
    apiKeys: { anthropic: 'test-key', openai: 'test-key' },
    baseURLs: { anthropic: fake.anthropicBaseURL, openai: fake.openaiBaseURL },
    extraModels: [],
    reason: 'test',
  };
  const app = createApp({
    dynamo: options.dynamo ?? aws.dynamo,
    tableName: aws.tableName,
    s3: options.s3 ?? aws.s3,
    bucket: aws.bucket,
    providers: providerResolver(providerConfig),
    models: offeredModels(providerConfig),
    verifier: hs256Verifier(TEST_SECRET),
    limits: { ...DEFAULT_SERVICE_LIMITS, ...options.limits },
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.usageLimits ? { usageLimits: options.usageLimits } : {}),
    ...(options.modelPrices ? { modelPrices: options.modelPrices } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    telemetry: { request: (record) => records.push(record) },
    log: (_message, error) => logged.push(error),
    logOutage: (message) => outages.push(message),
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  // Longer than any pause between a test's calls, so the client (undici closes an idle socket a
  // little before the server's advertised timeout) always closes first: with Node's 5 s, a call
  // on a loaded machine could be sent on a socket the server was closing ('other side closed').
  if ('keepAliveTimeout' in server) server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.once('listening', resolve));
  let closed = 0;
  server.on('connection', (socket: Socket) => socket.once('close', () => closed++));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const document = (await (await fetch(`${url}/openapi.json`)).json()) as { [key: string]: unknown };
  const conformance = new ConformanceChecker(document);
  const tokens = new Map<string, string>();
  const token = async (owner: string): Promise<string> => {
    let value = tokens.get(owner);
    if (!value) {
      value = await signLocalToken(TEST_SECRET, owner);
      tokens.set(owner, value);
    }
    return value;
  };
  const call: ApiHarness['call'] = async (owner, method, path, body, headers = {}) => {
    const auth: Record<string, string> = owner === null ? {} : { authorization: `Bearer ${await token(owner)}` };
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...auth, ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    // A stream is judged by its status and headers: a clone of it would hold its data back.
    const streamed = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
    const judged = streamed ? new Response(null, { status: response.status, headers: response.headers }) : response.clone();
    const departures = await conformance.check(method, path, judged);
    if (departures.length > 0) throw new Error(`the response departs from the OpenAPI document:\n${departures.join('\n')}`);
    return response;
  };
  return {
    url,
    aws,
    fake,
    logged,
    outages,
    closedConnections: () => closed,
    records,
    token,
    call,
    async newSession(owner = 'alice', body = {}) {
      return json<SessionSummaryJson>(await call(owner, 'POST', '/sessions', body), 201);
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await fake.close();
    },
  };
}

/** The body of `response` as JSON, once its status is `status` (else the test fails, showing the body's start). */
export async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  expect(response.status, text.slice(0, 2000)).toBe(status);
  return JSON.parse(text) as T;
}

/** Every item of the table and every object of the bucket, sorted: to compare before and after. */
export async function snapshot(aws: LocalAws): Promise<{ items: Record<string, AttributeValue>[]; objects: string[] }> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await aws.dynamo.send(new ScanCommand({ TableName: aws.tableName, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  const key = (item: Record<string, AttributeValue>): string => `${item.pk?.S}|${item.sk?.S}`;
  items.sort((a, b) => key(a).localeCompare(key(b)));
  const objects: string[] = [];
  let token: string | undefined;
  do {
    const page = await aws.s3.send(new ListObjectsV2Command({ Bucket: aws.bucket, ...(token ? { ContinuationToken: token } : {}) }));
    for (const object of page.Contents ?? []) objects.push(`${object.Key} ${object.ETag} ${object.Size}`);
    token = page.NextContinuationToken;
  } while (token);
  return { items, objects: objects.sort((a, b) => a.localeCompare(b)) };
}

/** Parses a server-sent event stream into its events. */
export function parseSSE(text: string): { event: string; data: unknown }[] {
  const events: { event: string; data: unknown }[] = [];
  for (const block of text.split('\n\n')) {
    // A comment (`: keep-alive`) is no event.
    if (block.trim() === '' || block.split('\n').every((line) => line.startsWith(':'))) continue;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    events.push({ event, data: JSON.parse(data.join('\n')) as unknown });
  }
  return events;
}

export interface SSEEvent {
  event: string;
  data: unknown;
  id?: string;
}

/**
 * Reads a server-sent event stream as it arrives: `next()` is the next event (null once the
 * stream ended), `until(test)` reads up to the first event that passes and returns all read.
 */
export function sseReader(response: Response): {
  next(): Promise<SSEEvent | null>;
  until(test: (event: SSEEvent) => boolean): Promise<SSEEvent[]>;
  rest(): Promise<SSEEvent[]>;
} {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<SSEEvent | null> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.trim() === '' || block.split('\n').every((line) => line.startsWith(':'))) continue;
        let event = 'message';
        let id: string | undefined;
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          else if (line.startsWith('id:')) id = line.slice(3).trim();
        }
        return { event, data: JSON.parse(data.join('\n')) as unknown, ...(id === undefined ? {} : { id }) };
      }
      const chunk = await reader.read();
      if (chunk.done) return null;
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  return {
    next,
    async until(test) {
      const seen: SSEEvent[] = [];
      for (let event = await next(); event !== null; event = await next()) {
        seen.push(event);
        if (test(event)) return seen;
      }
      throw new Error(`the stream ended before the awaited event; it sent ${JSON.stringify(seen.map((each) => each.event))}`);
    },
    async rest() {
      const seen: SSEEvent[] = [];
      for (let event = await next(); event !== null; event = await next()) seen.push(event);
      return seen;
    },
  };
}
