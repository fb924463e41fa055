/**
 * Followers that never read: 40 connections to `GET /sessions/{id}/events?from=0` of a 4 MB
 * session that read nothing (a client that stalled, or one that means harm), against the
 * same 40 reading every event to the end. Measures what the server holds for them (heap
 * and RSS growth after a GC) and how many connections it still keeps some seconds after
 * the stream's `end`.
 * Run alone: npx tsx --conditions=@panto/source bench/followers.ts
 */
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { S3Client } from '@aws-sdk/client-s3';
import { createTable, DynamoStore, SessionCache } from '@panto/aws';
import { OfflineProvider } from '@panto/core';
import { RecordFactory } from '@panto/core/testing';
import { createApp, DEFAULT_SERVICE_LIMITS as DEFAULT_LIMITS } from '@panto/functions';
import { hs256Verifier, signLocalToken } from '@panto/functions/local';
import { serve } from '@hono/node-server';
import { localDynamoDBClient, startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { printTable } from './util.js';

const FOLLOWERS = 40;
const MESSAGES = 40;
const MESSAGE_BYTES = 100 * 1024;
/** How long after the followers connect the server's connections are counted. */
const LINGER_MS = 16_000;
const SECRET = new Uint8Array(32).fill(7);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function memory(): { heap: number; rss: number } {
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function runFollowersBench(): Promise<void> {
  suppressNodeVersionWarning();
  const emulator = await startDynamoDBLocal();
  const dynamo = localDynamoDBClient(emulator.endpoint);
  try {
    const tableName = 'panto-followers';
    await createTable({ client: dynamo, tableName });
    const owner = 'bench';
    const store = await DynamoStore.create({ client: dynamo, tableName, owner });
    const f = new RecordFactory('follow');
    for (let i = 0; i < MESSAGES; i++) await store.appendMessages([f.user(`${i} ${'x'.repeat(MESSAGE_BYTES)}`, 'offline', 'offline-1')]);
    const token = await signLocalToken(SECRET, owner);
    const request = `GET /sessions/${store.sessionId()}/events?from=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;

    /** One round on a server of its own (a cold session cache, as a new process has). */
    const round = async (reading: boolean): Promise<{ heap: number; rss: number; lingering: number }> => {
      const app = createApp({
        dynamo,
        tableName,
        s3: new S3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
        bucket: 'unused',
        providers: () => new OfflineProvider(),
        verifier: hs256Verifier(SECRET),
        limits: DEFAULT_LIMITS,
        cache: new SessionCache(),
      });
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
      await new Promise<void>((resolve) => server.once('listening', resolve));
      const open = new Set<Socket>();
      server.on('connection', (socket: Socket) => {
        open.add(socket);
        socket.once('close', () => open.delete(socket));
      });
      const port = (server.address() as AddressInfo).port;
      const before = memory();
      const clients = Array.from({ length: FOLLOWERS }, () => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.write(request);
        if (reading) socket.resume();
        else socket.pause();
        return socket;
      });
      await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
      const after = memory();
      const lingering = open.size;
      for (const socket of clients) socket.destroy();
      server.close();
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { heap: after.heap - before.heap, rss: after.rss - before.rss, lingering };
    };
    // Stalled first: RSS only grows to a high-water mark, so the first round's growth is the honest one.
    const stalled = await round(false);
    const reading = await round(true);
    printTable(
      `followers — ${FOLLOWERS} connections following a ${mb(MESSAGES * MESSAGE_BYTES)} session from its start, counted ${LINGER_MS / 1000} s after they connect`,
      [
        ['reading to the end: heap, RSS growth; open', `${mb(reading.heap)}, ${mb(reading.rss)}; ${reading.lingering} connections`],
        ['never reading: heap, RSS growth; open', `${mb(stalled.heap)}, ${mb(stalled.rss)}; ${stalled.lingering} connections`],
        ['never reading / reading: heap growth', `${(stalled.heap / Math.max(reading.heap, 1)).toFixed(2)}×`],
      ],
    );
  } finally {
    await emulator.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runFollowersBench();
