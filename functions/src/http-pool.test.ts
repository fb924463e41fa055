import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { waitUntil } from '@panto/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AwsClients } from './aws-clients.js';
import { createAwsClients } from './aws-clients.js';
import { serviceAwsClients } from './deferred-s3.js';
import { LAMBDA_MAX_SOCKETS, LOCAL_MAX_SOCKETS } from './http-pool.js';
import { localAwsClients } from './local/emulator-clients.js';

interface Endpoint {
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}

/** An endpoint that accepts connections and never answers: each request in flight holds one open. */
async function silentEndpoint(): Promise<Endpoint> {
  let connections = 0;
  const server: Server = createServer(() => {});
  server.on('connection', (socket) => {
    connections++;
    socket.once('close', () => connections--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends `count` requests at once through `send` and returns how many connections the endpoint has open once they settled. */
async function connectionsFor(endpoint: Endpoint, count: number, send: (signal: AbortSignal) => Promise<unknown>, expected: number) {
  await waitUntil(() => endpoint.connections() === 0, { message: 'the connections of before closed' });
  const abort = new AbortController();
  const sent = Array.from({ length: count }, () => send(abort.signal).catch(() => {}));
  try {
    await waitUntil(() => endpoint.connections() >= expected, { message: `${expected} connections open`, timeoutMs: 10_000 });
    // Any more would open now: give the pool a moment to show it does not.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return endpoint.connections();
  } finally {
    abort.abort();
    await Promise.all(sent);
  }
}

const getItem = (clients: AwsClients) => (abortSignal: AbortSignal) =>
  clients.dynamo.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'p' } } }), { abortSignal });
const getObject = (clients: AwsClients) => (abortSignal: AbortSignal) => clients.s3.send(new GetObjectCommand({ Bucket: 'b', Key: 'k' }), { abortSignal });

/**
 * How many connections `clients` open to each endpoint with `max` + 20 requests in flight,
 * DynamoDB's then S3's; the clients are destroyed after.
 */
async function poolSizes(clients: AwsClients, dynamodb: Endpoint, s3: Endpoint, max: number): Promise<[number, number]> {
  try {
    return [await connectionsFor(dynamodb, max + 20, getItem(clients), max), await connectionsFor(s3, max + 20, getObject(clients), max)];
  } finally {
    clients.dynamo.destroy();
    clients.s3.destroy();
  }
}

describe('the clients’ connection pools', () => {
  const open: Array<{ close: () => Promise<void> }> = [];
  afterEach(async () => {
    vi.unstubAllEnvs();
    for (const each of open.splice(0)) await each.close();
  });

  it(`lets the local stack hold ${LOCAL_MAX_SOCKETS} DynamoDB and S3 requests in flight at once, past the SDK's default 50, and queues the rest`, async () => {
    const dynamodb = await silentEndpoint();
    const s3 = await silentEndpoint();
    open.push(dynamodb, s3);
    const clients = localAwsClients({ region: 'us-east-1', dynamodb: dynamodb.url, s3: s3.url });
    expect(await poolSizes(clients, dynamodb, s3, LOCAL_MAX_SOCKETS)).toEqual([LOCAL_MAX_SOCKETS, LOCAL_MAX_SOCKETS]);
  });

  it(`gives each Lambda function's clients ${LAMBDA_MAX_SOCKETS} connections per endpoint`, async () => {
    const dynamodb = await silentEndpoint();
    const s3 = await silentEndpoint();
    open.push(dynamodb, s3);
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamodb.url);
    vi.stubEnv('AWS_ENDPOINT_URL_S3', s3.url);
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    for (const clients of [serviceAwsClients({ region: 'us-east-1' }), createAwsClients({ region: 'us-east-1' })]) {
      expect(await poolSizes(clients, dynamodb, s3, LAMBDA_MAX_SOCKETS)).toEqual([LAMBDA_MAX_SOCKETS, LAMBDA_MAX_SOCKETS]);
    }
  });
});
