/**
 * Traces, end to end: the Lambda handlers (API Gateway's and the streaming function's), with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver this test starts, run turns on
 * DynamoDB Local and s3rver against a FakeLLMServer. What arrives — over http/json and over
 * http/protobuf, before each invocation has ended — is a trace per request: the request's
 * span, the turn (`invoke_agent panto`), each provider call (`chat <model>`) and tool call
 * (`execute_tool <name>`) with the GenAI conventions' attributes, and the store's DynamoDB and
 * S3 calls as child spans; prompts and answers only with PANTO_TRACE_CONTENT=1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { FakeLLMServer } from '@panto/core/testing';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';
import { OTLPReceiver, type ReceivedSpan } from './support/otlp-receiver.js';

type ApiResult = { statusCode: number; body: string };
type ApiHandler = (event: unknown, context?: unknown) => Promise<ApiResult>;
type StreamHandler = (event: unknown, responseStream: Writable, context: unknown) => Promise<void>;

const ISSUER = 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_TRACE';
const AUDIENCE = 'panto-client';
const PROMPT = 'What time is it? (a private prompt 7f3a)';
const ANSWER = 'It is noon (a private answer 9c1e).';
const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;

let aws: LocalAws;
let fake: FakeLLMServer;
let receiver: OTLPReceiver;
let jwks: Server;
let signingKey: CryptoKey;

beforeAll(async () => {
  [aws, fake, receiver] = await Promise.all([localAws('api-traces'), FakeLLMServer.start(), OTLPReceiver.start()]);
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' };
  jwks = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    SST_RESOURCE_App: JSON.stringify({ name: 'panto', stage: 'test' }),
    SST_RESOURCE_PantoTable: JSON.stringify({ name: aws.tableName }),
    SST_RESOURCE_PantoBucket: JSON.stringify({ name: aws.bucket }),
    SST_RESOURCE_AnthropicApiKey: JSON.stringify({ value: 'test-key' }),
    SST_RESOURCE_OpenAIApiKey: JSON.stringify({ value: '' }),
    SST_RESOURCE_MCPServers: JSON.stringify({ value: '' }),
    SST_RESOURCE_PantoAuth: JSON.stringify({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
    }),
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoEndpoint'),
    AWS_ENDPOINT_URL_S3: inject('s3Endpoint'),
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    AWS_LAMBDA_FUNCTION_NAME: 'panto-test-api',
    ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
    PANTO_MODEL: 'claude-test',
  });
  Object.assign(globalThis, {
    awslambda: {
      streamifyResponse: (handler: StreamHandler) => handler,
      HttpResponseStream: { from: (stream: Writable & { metadata?: unknown }, metadata: unknown) => Object.assign(stream, { metadata }) },
    },
  });
});

afterAll(async () => {
  await Promise.all([fake?.close(), receiver?.close(), new Promise<void>((resolve) => (jwks ? jwks.close(() => resolve()) : resolve()))]);
});

const TRACE_SETTINGS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_SERVICE_NAME', 'PANTO_TRACE_CONTENT'];

/** The handlers, freshly loaded (as a new container loads them) with exactly `env` among the trace settings. */
async function handlers(env: Record<string, string>): Promise<{ api: ApiHandler; stream: StreamHandler }> {
  for (const name of TRACE_SETTINGS) delete process.env[name];
  Object.assign(process.env, env);
  vi.resetModules();
  receiver.clear();
  const api = ((await import('@panto/functions/handlers/api')) as { handler: ApiHandler }).handler;
  const stream = ((await import('@panto/functions/handlers/stream')) as unknown as { handler: StreamHandler }).handler;
  return { api, stream };
}

function apiEvent(routeKey: string, rawPath: string, body?: string, headers: Record<string, string> = {}): Record<string, unknown> {
  const [method] = routeKey.split(' ');
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', host: 'abc123def4.execute-api.us-east-1.amazonaws.com', 'x-forwarded-proto': 'https', ...headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123def4',
      authorizer: {
        jwt: { claims: { sub: 'user-traces', iss: ISSUER, client_id: AUDIENCE, exp: String(Math.floor(Date.now() / 1000) + 3600) }, scopes: null },
      },
      domainName: 'abc123def4.execute-api.us-east-1.amazonaws.com',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'test' },
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey,
      stage: '$default',
      timeEpoch: Date.now(),
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
  };
}

async function createSession(api: ApiHandler): Promise<string> {
  const created = await api(apiEvent('POST /sessions', '/sessions', '{}'));
  expect(created.statusCode, created.body).toBe(201);
  return (JSON.parse(created.body) as { id: string }).id;
}

/** A turn that calls `current_time`, then answers. */
function scriptToolTurn(): void {
  fake.enqueue(
    { toolCalls: [{ id: 'toolu_trace_1', name: 'current_time', input: { time_zone: 'UTC' } }], usage: { input: 30, output: 12, cacheRead: 100 } },
    { text: ANSWER, usage: { input: 45, output: 9 } },
  );
}

const named = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan[] => spans.filter((span) => span.name === name);
function one(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = named(spans, name);
  expect(
    found.map((span) => span.name),
    `one span named ${name} among ${spans.map((span) => span.name).join(', ')}`,
  ).toEqual([name]);
  return found[0]!;
}

/** Checks one synchronous tool turn's trace as it arrived; returns its spans. */
function expectTurnTrace(sessionId: string): ReceivedSpan[] {
  const request = one(receiver.spans, 'POST /sessions/{id}/messages');
  const spans = receiver.spans.filter((span) => span.traceId === request.traceId);
  expect(request).toMatchObject({ kind: SERVER, parentSpanId: '' });
  expect(request.attributes).toMatchObject({
    'http.request.method': 'POST',
    'http.route': '/sessions/{id}/messages',
    'http.response.status_code': 200,
    'panto.session_id': sessionId,
  });

  const turn = one(spans, 'invoke_agent panto');
  expect(turn).toMatchObject({ kind: INTERNAL, parentSpanId: request.spanId });
  expect(turn.attributes).toMatchObject({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'panto',
    'gen_ai.provider.name': 'anthropic',
    'gen_ai.request.model': 'claude-test',
    'gen_ai.conversation.id': sessionId,
    'gen_ai.usage.input_tokens': 175,
    'gen_ai.usage.output_tokens': 21,
    'gen_ai.response.finish_reasons': ['end_turn'],
  });

  const chats = named(spans, 'chat claude-test');
  expect(chats).toHaveLength(2);
  for (const chat of chats) {
    expect(chat).toMatchObject({ kind: CLIENT, parentSpanId: turn.spanId });
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-test',
      'gen_ai.conversation.id': sessionId,
    });
  }
  // In the conventions' terms: input tokens include the cached ones.
  expect(chats.map((chat) => chat.attributes)).toEqual([
    expect.objectContaining({
      'gen_ai.usage.input_tokens': 130,
      'gen_ai.usage.cache_read.input_tokens': 100,
      'gen_ai.usage.output_tokens': 12,
      'gen_ai.response.finish_reasons': ['tool_use'],
    }),
    expect.objectContaining({ 'gen_ai.usage.input_tokens': 45, 'gen_ai.usage.output_tokens': 9, 'gen_ai.response.finish_reasons': ['end_turn'] }),
  ]);

  const tool = one(spans, 'execute_tool current_time');
  expect(tool).toMatchObject({ kind: INTERNAL, parentSpanId: turn.spanId, status: { code: 0 } });
  expect(tool.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'current_time',
    'gen_ai.tool.call.id': 'toolu_trace_1',
  });

  // The store's calls: the lease under the request, the appends under the turn.
  const dynamo = spans.filter((span) => span.attributes['rpc.service'] === 'DynamoDB');
  expect(dynamo.length).toBeGreaterThanOrEqual(4);
  for (const call of dynamo) {
    expect(call.kind).toBe(CLIENT);
    expect(call.attributes).toMatchObject({ 'rpc.system': 'aws-api', 'aws.dynamodb.table_names': [aws.tableName] });
    expect(call.name).toBe(`DynamoDB.${String(call.attributes['rpc.method'])}`);
  }
  expect(dynamo.filter((call) => call.parentSpanId === turn.spanId).map((call) => call.name)).toContain('DynamoDB.TransactWriteItems');
  expect(dynamo.filter((call) => call.parentSpanId === request.spanId).length).toBeGreaterThan(0);
  expect(request.resource).toMatchObject({ 'service.name': 'panto-traces', 'faas.name': 'panto-test-api', 'cloud.provider': 'aws' });
  return spans;
}

describe.each([
  { protocol: 'http/json', contentType: 'application/json' },
  { protocol: 'http/protobuf', contentType: 'application/x-protobuf' },
])('traces over OTLP $protocol', ({ protocol, contentType }) => {
  it("exports a turn's spans before the invocation ends: request, turn, chats, tool, and the store's calls", async () => {
    const { api } = await handlers({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-team=ops',
      OTEL_SERVICE_NAME: 'panto-traces',
    });
    const id = await createSession(api);
    receiver.clear();
    scriptToolTurn();
    const turn = await api(apiEvent('POST /sessions/{id}/messages', `/sessions/${id}/messages`, JSON.stringify({ text: PROMPT })));
    expect(turn.statusCode, turn.body).toBe(200);
    // No waiting: the spans were exported before the handler returned.
    const spans = expectTurnTrace(id);
    expect(receiver.exports.map((each) => [each.path, each.contentType, each.headers['x-collector-team']])).toEqual(
      receiver.exports.map(() => ['/v1/traces', contentType, 'ops']),
    );
    // No prompt, answer, tool argument or result in any span.
    const everything = JSON.stringify(spans);
    for (const secret of ['private prompt', 'private answer', 'time_zone']) expect(everything).not.toContain(secret);
    expect(spans.some((span) => 'gen_ai.input.messages' in span.attributes || 'gen_ai.output.messages' in span.attributes)).toBe(false);

    // An export writes the session to S3: its calls are the request's children too.
    receiver.clear();
    const exported = await api(apiEvent('POST /sessions/{id}/export', `/sessions/${id}/export`));
    expect(exported.statusCode, exported.body).toBe(200);
    const request = one(receiver.spans, 'POST /sessions/{id}/export');
    const s3 = receiver.spans.filter((span) => span.attributes['rpc.service'] === 'S3');
    expect(s3.length).toBeGreaterThan(0);
    for (const call of s3) {
      expect(call).toMatchObject({ kind: CLIENT, traceId: request.traceId, parentSpanId: request.spanId });
      expect(call.attributes).toMatchObject({ 'rpc.system': 'aws-api', 'aws.s3.bucket': aws.bucket, 'aws.s3.key': expect.stringContaining(id) });
    }
  });

  it("continues the caller's trace from its traceparent, and traces the streamed turn before its stream ends", async () => {
    const { api, stream } = await handlers({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'panto-traces',
    });
    const id = await createSession(api);
    receiver.clear();
    fake.enqueue({ text: 'Streamed.', usage: { input: 5, output: 2 } });
    const token = await new SignJWT({ client_id: AUDIENCE, token_use: 'access' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setSubject('user-traces')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(signingKey);
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const { status, body } = await streamTurn(stream, id, token, `00-${traceId}-b7ad6b7169203331-01`);
    expect(status).toBe(200);
    expect(body).toContain('Streamed.');
    const request = one(receiver.spans, 'POST /sessions/{id}/messages/stream');
    expect(request).toMatchObject({ traceId, parentSpanId: 'b7ad6b7169203331', kind: SERVER });
    const turn = one(receiver.spans, 'invoke_agent panto');
    expect(turn).toMatchObject({ traceId, parentSpanId: request.spanId });
    expect(one(receiver.spans, 'chat claude-test')).toMatchObject({ parentSpanId: turn.spanId });
  });
});

/** A streamed turn through the streaming handler; the status and body it sent once the invocation ended. */
async function streamTurn(stream: StreamHandler, id: string, token: string, traceparent: string): Promise<{ status: number | undefined; body: string }> {
  const chunks: Buffer[] = [];
  const responseStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  }) as Writable & { metadata?: { statusCode: number } };
  const rawPath = `/sessions/${id}/messages/stream`;
  await stream(
    {
      version: '2.0',
      routeKey: '$default',
      rawPath,
      rawQueryString: '',
      headers: { 'content-type': 'application/json', host: 'abc.lambda-url.us-east-1.on.aws', authorization: `Bearer ${token}`, traceparent },
      requestContext: { http: { method: 'POST', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7' }, requestId: 'stream-1', stage: '$default' },
      body: JSON.stringify({ text: 'Stream, please.' }),
      isBase64Encoded: false,
    },
    responseStream,
    {},
  );
  return { status: responseStream.metadata?.statusCode, body: Buffer.concat(chunks).toString('utf8') };
}

describe('trace content', () => {
  it('puts prompts, answers and tool calls in the GenAI content attributes with PANTO_TRACE_CONTENT=1', async () => {
    const { api } = await handlers({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'panto-traces', PANTO_TRACE_CONTENT: '1' });
    const id = await createSession(api);
    scriptToolTurn();
    expect((await api(apiEvent('POST /sessions/{id}/messages', `/sessions/${id}/messages`, JSON.stringify({ text: PROMPT })))).statusCode).toBe(200);
    const spans = expectTurnTrace(id);
    const [first, second] = named(spans, 'chat claude-test');
    expect(JSON.parse(String(first?.attributes['gen_ai.input.messages']))).toEqual([{ role: 'user', parts: [{ type: 'text', content: PROMPT }] }]);
    expect(JSON.parse(String(first?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'toolu_trace_1', name: 'current_time', arguments: { time_zone: 'UTC' } }],
        finish_reason: 'tool_use',
      },
    ]);
    expect(JSON.parse(String(second?.attributes['gen_ai.input.messages']))).toContainEqual({
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: 'toolu_trace_1', result: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }],
    });
    expect(String(second?.attributes['gen_ai.output.messages'])).toContain(ANSWER);
    const tool = one(spans, 'execute_tool current_time');
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ time_zone: 'UTC' });
    expect(tool.attributes['gen_ai.tool.call.result']).toMatch(/^\d{4}-\d\d-\d\dT.*\(UTC: /);
  });

  it('exports nothing, and answers as before, with no OTLP endpoint', async () => {
    const { api } = await handlers({ PANTO_TRACE_CONTENT: '1' });
    const id = await createSession(api);
    scriptToolTurn();
    expect((await api(apiEvent('POST /sessions/{id}/messages', `/sessions/${id}/messages`, JSON.stringify({ text: PROMPT })))).statusCode).toBe(200);
    expect(receiver.exports).toEqual([]);
  });
});
