/**
 * The exported Lambda handlers, fed literal events: API Gateway HTTP API (payload 2.0)
 * events with the JWT authorizer's claims to `handlers/api.ts`, and function URL events
 * to the response-streaming `handlers/stream.ts` (under a stand-in for the Lambda
 * runtime's `awslambda` global).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Message } from '@panto/core';
import { FakeLLMServer } from '@panto/core/testing';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { parseSSE, snapshot } from './api-harness.js';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';

type ApiResult = { statusCode: number; headers?: Record<string, string>; body: string; isBase64Encoded: boolean };
type ApiHandler = (event: unknown, context?: unknown) => Promise<ApiResult>;
type StreamHandler = (event: unknown, responseStream: Writable, context: unknown) => Promise<void>;

const ISSUER = 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_TEST';
const AUDIENCE = 'panto-client';
let aws: LocalAws;
let fake: FakeLLMServer;
let jwks: Server;
let signingKey: CryptoKey;
let apiHandler: ApiHandler;
let streamHandler: StreamHandler;

beforeAll(async () => {
  aws = await localAws('api-lambda');
  fake = await FakeLLMServer.start();
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' };
  jwks = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  // What SST gives a linked function; the emulators through the AWS SDK's own endpoint and
  // checksum variables, so the handlers run exactly as deployed (they hold no emulator code).
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
      jwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`,
    }),
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoEndpoint'),
    AWS_ENDPOINT_URL_S3: inject('s3Endpoint'),
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
    PANTO_MODEL: 'claude-test',
    PANTO_BODY_LIMIT_BYTES: '4096',
  });
  // The Lambda Node.js runtime's response-streaming global.
  Object.assign(globalThis, {
    awslambda: {
      streamifyResponse: (handler: StreamHandler) => handler,
      HttpResponseStream: {
        from: (stream: Writable & { metadata?: unknown }, metadata: unknown) => Object.assign(stream, { metadata }),
      },
    },
  });
  apiHandler = ((await import('@panto/functions/handlers/api')) as { handler: ApiHandler }).handler;
  // hono types it as a plain Lambda handler; under streamifyResponse it takes (event, responseStream, context).
  streamHandler = ((await import('@panto/functions/handlers/stream')) as unknown as { handler: StreamHandler }).handler;
});

afterAll(async () => {
  await fake?.close();
  await new Promise<void>((resolve) => (jwks ? jwks.close(() => resolve()) : resolve()));
});

/** An API Gateway HTTP API (payload format 2.0) event, as the JWT authorizer passes it on. */
function apiEvent(
  routeKey: string,
  rawPath: string,
  options: { sub?: string | null; body?: string; base64?: boolean; query?: string; headers?: Record<string, string> } = {},
): Record<string, unknown> {
  const [method] = routeKey.split(' ');
  const sub = options.sub === undefined ? 'user-lambda' : options.sub;
  const body = options.body === undefined ? undefined : options.base64 ? Buffer.from(options.body).toString('base64') : options.body;
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: options.query ?? '',
    headers: {
      accept: '*/*',
      'content-length': String(options.body === undefined ? 0 : Buffer.byteLength(options.body)),
      'content-type': 'application/json',
      host: 'abc123def4.execute-api.us-east-1.amazonaws.com',
      'user-agent': 'curl/8.5.0',
      'x-amzn-trace-id': 'Root=1-67891233-abcdef012345678912345678',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
      ...options.headers,
    },
    ...(options.query ? { queryStringParameters: Object.fromEntries(new URLSearchParams(options.query)) } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123def4',
      ...(sub === null
        ? {}
        : {
            authorizer: {
              jwt: {
                claims: { sub, iss: ISSUER, client_id: AUDIENCE, token_use: 'access', exp: '1999999999', iat: '1700000000' },
                scopes: null,
              },
            },
          }),
      domainName: 'abc123def4.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123def4',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'curl/8.5.0' },
      requestId: 'JKJaXmPLvHcESHA=',
      routeKey,
      stage: '$default',
      time: '10/Mar/2026:12:00:00 +0000',
      timeEpoch: 1773144000000,
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: options.base64 ?? false,
  };
}

function parse<T>(result: ApiResult, status: number): T {
  expect(result.statusCode, result.body).toBe(status);
  expect(result.headers?.['content-type']).toMatch(/^application\/json/);
  return JSON.parse(result.body) as T;
}

describe('handlers/api.ts (API Gateway HTTP API)', () => {
  it('creates a session from a literal API Gateway v2 event, owned by the claims sub', async () => {
    const event = {
      version: '2.0',
      routeKey: 'POST /sessions',
      rawPath: '/sessions',
      rawQueryString: '',
      headers: {
        authorization: 'Bearer eyJraWQiOiJrMSIsImFsZyI6IlJTMjU2In0.eyJzdWIiOiJ1c2VyLWxhbWJkYSJ9.c2ln',
        'content-length': '28',
        'content-type': 'application/json',
        host: 'abc123def4.execute-api.us-east-1.amazonaws.com',
        'user-agent': 'curl/8.5.0',
        'x-amzn-trace-id': 'Root=1-67891233-abcdef012345678912345678',
        'x-forwarded-for': '203.0.113.7',
        'x-forwarded-port': '443',
        'x-forwarded-proto': 'https',
      },
      requestContext: {
        accountId: '123456789012',
        apiId: 'abc123def4',
        authorizer: {
          jwt: {
            claims: {
              sub: 'user-lambda',
              iss: ISSUER,
              client_id: AUDIENCE,
              token_use: 'access',
              scope: 'openid',
              auth_time: '1773143000',
              // The function checks expiry as well as API Gateway: an hour from now, not from the event's time.
              exp: String(Math.floor(Date.now() / 1000) + 3600),
              iat: '1773143000',
            },
            scopes: null,
          },
        },
        domainName: 'abc123def4.execute-api.us-east-1.amazonaws.com',
        domainPrefix: 'abc123def4',
        http: { method: 'POST', path: '/sessions', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'curl/8.5.0' },
        requestId: 'JKJaXmPLvHcESHA=',
        routeKey: 'POST /sessions',
        stage: '$default',
        time: '10/Mar/2026:12:00:00 +0000',
        timeEpoch: 1773144000000,
      },
      body: '{"system":"Answer briefly."}',
      isBase64Encoded: false,
    };
    const session = parse<{ id: string; active_model: unknown }>(await apiHandler(event), 201);
    expect(session.active_model).toEqual({ provider: 'anthropic', model: 'claude-test' });
    const listed = parse<{ sessions: { id: string }[] }>(await apiHandler(apiEvent('GET /sessions', '/sessions')), 200);
    expect(listed.sessions.map((s) => s.id)).toContain(session.id);
    const other = parse<{ sessions: unknown[] }>(await apiHandler(apiEvent('GET /sessions', '/sessions', { sub: 'someone-else' })), 200);
    expect(other.sessions).toEqual([]);
  });

  it('runs a turn from a base64-encoded body and reads the session back', async () => {
    const { id } = parse<{ id: string }>(await apiHandler(apiEvent('POST /sessions', '/sessions', { body: '{}' })), 201);
    fake.enqueue({ text: 'Hi from Lambda.', usage: { input: 5, output: 4 } });
    const turn = parse<{ messages: Message[]; stop_reason: string }>(
      await apiHandler(apiEvent('POST /sessions/{id}/messages', `/sessions/${id}/messages`, { body: '{"text":"hello"}', base64: true })),
      200,
    );
    expect(turn.stop_reason).toBe('end_turn');
    expect(turn.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const contents = parse<{ messages: Message[]; usage: { output_tokens: number } }>(await apiHandler(apiEvent('GET /sessions/{id}', `/sessions/${id}`)), 200);
    expect(contents.messages).toEqual(turn.messages);
    expect(contents.usage.output_tokens).toBe(4);
  });

  it("logs each request as Powertools JSON with API Gateway's request id, and publishes its metrics", async () => {
    const { id } = parse<{ id: string }>(await apiHandler(apiEvent('POST /sessions', '/sessions', { body: '{}' })), 201);
    fake.enqueue({ text: 'Logged.', usage: { input: 7, output: 2 } });
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(
        ...String(chunk)
          .split('\n')
          .filter((line) => line.startsWith('{')),
      );
      return true;
    });
    const context = {
      awsRequestId: '8476a536-e9f4-11e8-9739-2dfe598c3fcd',
      functionName: 'panto-api',
      functionVersion: '$LATEST',
      memoryLimitInMB: '1024',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:panto-api',
    };
    try {
      parse(await apiHandler(apiEvent('POST /sessions/{id}/messages', `/sessions/${id}/messages`, { body: '{"text":"a private prompt"}' }), context), 200);
    } finally {
      spy.mockRestore();
    }
    const [log, emf] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(log).toMatchObject({
      level: 'INFO',
      message: 'request',
      request_id: 'JKJaXmPLvHcESHA=',
      function_request_id: '8476a536-e9f4-11e8-9739-2dfe598c3fcd',
      route: '/sessions/{id}/messages',
      status: 200,
      session_id: id,
      turn: true,
      tokens: { input_tokens: 7, output_tokens: 2 },
    });
    expect(log?.owner_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(emf).toMatchObject({ turns: 1, input_tokens: 7, output_tokens: 2, _aws: { CloudWatchMetrics: [{ Namespace: 'panto' }] } });
    expect(lines.join('\n')).not.toContain('user-lambda');
    expect(lines.join('\n')).not.toContain('a private prompt');
  });

  it('answers 401 to an event without authorizer claims, whatever its Authorization header says', async () => {
    const event = apiEvent('GET /sessions', '/sessions', { sub: null, headers: { authorization: 'Bearer a.b.c' } });
    expect(parse<{ error: { code: string } }>(await apiHandler(event), 401).error.code).toBe('unauthorized');
  });

  it('answers 400, 404 and 413 to malformed events and changes nothing', async () => {
    const { id } = parse<{ id: string }>(await apiHandler(apiEvent('POST /sessions', '/sessions', { body: '{}' })), 201);
    const before = await snapshot(aws);
    const cases: [Record<string, unknown>, number][] = [
      [apiEvent('POST /sessions/{id}/messages', `/sessions/${id}/messages`, { body: '{"text":' }), 400],
      [apiEvent('POST /sessions/{id}/messages', `/sessions/${id}/messages`, { body: '{"text":["a"]}' }), 400],
      [apiEvent('POST /sessions/{id}/messages', `/sessions/${id}/messages`, { body: JSON.stringify({ text: 'x'.repeat(5000) }) }), 413],
      [apiEvent('GET /sessions/{id}', '/sessions/..%2F..%2Fetc%2Fpasswd'), 404],
      [apiEvent('GET /sessions/{id}', `/sessions/${id}`, { sub: 'intruder' }), 404],
      [apiEvent('DELETE /sessions/{id}', `/sessions/${id}`, { sub: 'intruder' }), 404],
      [apiEvent('GET /sessions', '/sessions', { query: 'limit=-1' }), 400],
      [apiEvent('GET /sessions', '/sessions', { query: 'limit=1&limit=2' }), 400],
      // A body API Gateway passed base64-encoded keeps its bytes: Latin-1, not UTF-8.
      [
        {
          ...apiEvent('POST /sessions/{id}/messages', `/sessions/${id}/messages`, { body: '{"text":"cafe"}', base64: true }),
          body: Buffer.from('{"text":"café"}', 'latin1').toString('base64'),
        },
        400,
      ],
    ];
    for (const [event, status] of cases) {
      const result = await apiHandler(event);
      expect(result.statusCode, `${String(event.rawPath)}: ${result.body}`).toBe(status);
    }
    expect(await snapshot(aws)).toEqual(before);
  });
});

/** Runs the streaming handler on a function URL event; returns the status it sent and the body. */
async function stream(event: unknown): Promise<{ status: number | undefined; body: string }> {
  const chunks: Buffer[] = [];
  const responseStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  }) as Writable & { metadata?: { statusCode: number } };
  await streamHandler(event, responseStream, {});
  return { status: responseStream.metadata?.statusCode, body: Buffer.concat(chunks).toString('utf8') };
}

/** A Lambda function URL event (payload 2.0; no authorizer). */
function urlEvent(rawPath: string, body: string, authorization?: string): Record<string, unknown> {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      host: 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws',
      'x-forwarded-proto': 'https',
      ...(authorization === undefined ? {} : { authorization }),
    },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abcdefghijklmnopqrstuvwxyz012345',
      domainName: 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws',
      domainPrefix: 'abcdefghijklmnopqrstuvwxyz012345',
      http: { method: 'POST', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'curl/8.5.0' },
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      routeKey: '$default',
      stage: '$default',
      time: '10/Mar/2026:12:00:00 +0000',
      timeEpoch: 1773144000000,
    },
    body,
    isBase64Encoded: false,
  };
}

function accessToken(sub: string, key: CryptoKey = signingKey): Promise<string> {
  return new SignJWT({ client_id: AUDIENCE, token_use: 'access' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setSubject(sub)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);
}

describe('handlers/stream.ts (function URL, response streaming)', () => {
  it("streams a turn for a token that verifies against the issuer's keys", async () => {
    const { id } = parse<{ id: string }>(await apiHandler(apiEvent('POST /sessions', '/sessions', { body: '{}' })), 201);
    fake.enqueue({ text: 'Streamed from Lambda.' });
    const result = await stream(urlEvent(`/sessions/${id}/messages/stream`, '{"text":"stream"}', `Bearer ${await accessToken('user-lambda')}`));
    expect(result.status).toBe(200);
    const events = parseSSE(result.body);
    expect(events.filter((e) => e.event === 'message').map((e) => (e.data as { message: Message }).message.role)).toEqual(['user', 'assistant']);
    expect(
      events
        .filter((e) => e.event === 'text-delta')
        .map((e) => (e.data as { delta: string }).delta)
        .join(''),
    ).toBe('Streamed from Lambda.');
    expect(events.at(-1)?.event).toBe('end');
  });

  it('answers 401 to a missing or forged token, and 404 to another owner, before streaming anything', async () => {
    const { id } = parse<{ id: string }>(await apiHandler(apiEvent('POST /sessions', '/sessions', { body: '{}' })), 201);
    const before = await snapshot(aws);
    const path = `/sessions/${id}/messages/stream`;
    const forged = await accessToken('user-lambda', (await generateKeyPair('RS256')).privateKey);
    expect((await stream(urlEvent(path, '{"text":"x"}'))).status).toBe(401);
    expect((await stream(urlEvent(path, '{"text":"x"}', `Bearer ${forged}`))).status).toBe(401);
    const intruder = await stream(urlEvent(path, '{"text":"x"}', `Bearer ${await accessToken('intruder')}`));
    expect(intruder.status).toBe(404);
    expect(JSON.parse(intruder.body)).toEqual({ error: { code: 'session_not_found', message: 'session not found' } });
    expect(await snapshot(aws)).toEqual(before);
  });
});
