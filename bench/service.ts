/**
 * Service benchmarks:
 * - per Lambda handler, its bundle size and module-initialisation time (a fresh Node
 *   process importing the bundle: what a cold start pays before the first request),
 *   against a trivial handler bundled the same way;
 * - the time from a request to the provider call for a session of 1,000 messages (load the
 *   conversation, persist the prompt with the lease), against an empty session;
 * - what a plain turn costs DynamoDB — requests, and bytes DynamoDB sends back, counted by a
 *   proxy in front of DynamoDB Local — at turns 2, 50 and 200, in a warm process (its session
 *   cache holds the log) against a cold one (reads the whole log: every turn, before the cache);
 * - the turn lease at its defaults: the writes a running turn adds by renewing it (per minute,
 *   against the one lease of before: none), and how long after a crash its session is free
 *   again (against the lease terms of before). Real time: about 35 s.
 * Run alone: npx tsx --conditions=@panto/source bench/service.ts
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { acquireSessionLease, createTable, DynamoStore, keepSessionLease, SessionCache } from '@panto/aws';
import { emptyUsage, type Provider, type ProviderEvent } from '@panto/core';
import { waitUntil } from '@panto/core/testing';
import { RecordFactory } from '@panto/core/testing';
import { createApp, DEFAULT_SERVICE_LIMITS as DEFAULT_LIMITS } from '@panto/functions';
import { hs256Verifier, signLocalToken } from '@panto/functions/local';
import { bundleHandlers, formatBytes, HANDLERS, LAMBDA_LINKED_ENV } from '../scripts/bundle.js';
import { localDynamoDBClient, startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { DynamoProxy } from '../test/dynamo-proxy.js';
import { median, printTable } from './util.js';

const run = promisify(execFile);
const INIT_SAMPLES = 9;
const TURN_SAMPLES = 15;
const SESSION_MESSAGES = 1_000;

/** Milliseconds a fresh Node process takes to import `file` (median of INIT_SAMPLES). */
async function initTime(file: string): Promise<number> {
  const script = `
    globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };
    const start = performance.now();
    await import(${JSON.stringify(pathToFileURL(file).href)});
    process.stdout.write(String(performance.now() - start));`;
  const samples: number[] = [];
  for (let i = 0; i < INIT_SAMPLES; i++) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, ...LAMBDA_LINKED_ENV },
    });
    samples.push(Number(stdout));
  }
  return median(samples);
}

async function benchBundles(dir: string): Promise<void> {
  const trivialSource = join(dir, 'trivial.ts');
  await writeFile(trivialSource, "export const handler = async () => ({ statusCode: 200, body: 'ok' });\n");
  const reports = await bundleHandlers({ ...HANDLERS, trivial: trivialSource }, join(dir, 'bundles'));
  const trivial = reports.find((report) => report.name === 'trivial')!;
  const trivialInit = await initTime(trivial.file);
  const rows: [string, string][] = [[`trivial handler: size, init`, `${formatBytes(trivial.bytes)}, ${trivialInit.toFixed(1)} ms`]];
  for (const report of reports) {
    if (report === trivial) continue;
    const init = await initTime(report.file);
    rows.push([
      `${report.name}: size (gzip), init`,
      `${formatBytes(report.bytes)} (${formatBytes(report.gzipBytes)}), ${init.toFixed(1)} ms — ${(init / trivialInit).toFixed(1)}× the trivial handler's init`,
    ]);
  }
  printTable(`service — Lambda bundles (esbuild, minified ESM; init = import in a fresh node, median of ${INIT_SAMPLES})`, rows);
}

/** A provider that notes when it is called and answers at once. */
class StopwatchProvider implements Provider {
  readonly name = 'anthropic';
  readonly model = 'bench';
  calledAt = 0;
  async *stream(): AsyncGenerator<ProviderEvent> {
    this.calledAt = performance.now();
    yield {
      type: 'message-end',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'ok' }],
        provider: this.name,
        model: this.model,
        usage: emptyUsage(),
        stop_reason: 'end_turn',
      },
    };
  }
}

const BENCH_SECRET = new Uint8Array(32).fill(1);

/** The service app on `dynamo`, its model `provider`, with no S3 (these turns offload nothing). */
function benchApp(dynamo: DynamoDBClient, tableName: string, provider: Provider, cache = new SessionCache()): ReturnType<typeof createApp> {
  return createApp({
    dynamo,
    tableName,
    s3: new S3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
    bucket: 'unused',
    providers: () => provider,
    verifier: hs256Verifier(BENCH_SECRET),
    limits: DEFAULT_LIMITS,
    cache,
  });
}

async function benchTurn(): Promise<void> {
  suppressNodeVersionWarning();
  const emulator = await startDynamoDBLocal();
  const dynamo = localDynamoDBClient(emulator.endpoint);
  try {
    const tableName = 'panto-bench';
    await createTable({ client: dynamo, tableName });
    const owner = 'bench';
    const provider = new StopwatchProvider();
    const app = benchApp(dynamo, tableName, provider);
    const token = await signLocalToken(BENCH_SECRET, owner);

    const session = async (messages: number): Promise<string> => {
      const store = await DynamoStore.create({ client: dynamo, tableName, owner });
      const f = new RecordFactory(`m${messages}`);
      for (let i = 0; i < messages; i += 100) {
        const batch = [];
        for (let j = i; j < Math.min(messages, i + 100); j += 2) {
          batch.push(f.user(`Question ${j}: ${'tell me about this part of the code '.repeat(6)}`, 'anthropic', 'bench'));
          batch.push(f.assistant(`Answer ${j}: ${'it reads the file and returns its lines. '.repeat(20)}`, { provider: 'anthropic', model: 'bench' }));
        }
        await store.appendMessages(batch);
      }
      return store.sessionId();
    };
    const toProviderCall = async (id: string): Promise<number> => {
      const start = performance.now();
      const response = await app.request(`/sessions/${id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'and now?' }),
      });
      if (response.status !== 200) throw new Error(`turn failed: ${response.status} ${await response.text()}`);
      return provider.calledAt - start;
    };
    const measure = async (messages: number): Promise<number> => {
      const id = await session(messages);
      await toProviderCall(id); // warm-up
      const samples: number[] = [];
      for (let i = 0; i < TURN_SAMPLES; i++) samples.push(await toProviderCall(id));
      return median(samples);
    };
    const empty = await measure(0);
    const large = await measure(SESSION_MESSAGES);
    printTable(`service — request to provider call (DynamoDB Local, median of ${TURN_SAMPLES})`, [
      ['empty session', `${empty.toFixed(1)} ms`],
      [`${SESSION_MESSAGES}-message session`, `${large.toFixed(1)} ms`],
      ['ratio', `${(large / empty).toFixed(1)}×`],
    ]);
  } finally {
    dynamo.destroy();
    await emulator.stop();
  }
}

/** Requests and response bytes of plain turns, warm and cold, as a session grows to 200 turns. */
async function benchTurnCost(): Promise<void> {
  suppressNodeVersionWarning();
  const emulator = await startDynamoDBLocal();
  const proxy = await DynamoProxy.start(emulator.endpoint);
  const dynamo = localDynamoDBClient(proxy.endpoint);
  try {
    const tableName = 'panto-bench-cost';
    await createTable({ client: dynamo, tableName });
    const token = await signLocalToken(BENCH_SECRET, 'bench');
    const provider = new StopwatchProvider();
    const app = (cache: SessionCache) => benchApp(dynamo, tableName, provider, cache);
    const warm = app(new SessionCache());
    const request = (target: ReturnType<typeof app>, path: string, body: object) =>
      target.request(path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const { id } = (await (await request(warm, '/sessions', { system: 'Be brief.' })).json()) as { id: string };
    const turn = async (target: ReturnType<typeof app>, n: number): Promise<{ requests: number; bytes: number }> => {
      proxy.resetCounts();
      const response = await request(target, `/sessions/${id}/messages`, { text: `Question ${n}: ${'tell me about this part of the code '.repeat(6)}` });
      if (response.status !== 200) throw new Error(`turn failed: ${response.status} ${await response.text()}`);
      return { requests: proxy.requests.length, bytes: proxy.responseBytes };
    };
    const rows: [string, string][] = [];
    let warmAt2 = 0;
    let coldAt2 = 0;
    for (let n = 1; n <= 200; n++) {
      const measured = n === 2 || n === 50 || n === 200;
      const warmCost = await turn(warm, n);
      if (!measured) continue;
      // The same turn in a cold process (a fresh cache), on the session as it now stands.
      const coldCost = await turn(app(new SessionCache()), n);
      await warm.request(`/sessions/${id}`, { headers: { authorization: `Bearer ${token}` } }); // the warm process catches up
      if (n === 2) [warmAt2, coldAt2] = [warmCost.bytes, coldCost.bytes];
      rows.push([
        `turn ${n}: warm / cold`,
        `${warmCost.requests} requests, ${formatBytes(warmCost.bytes)} read (${(warmCost.bytes / warmAt2).toFixed(2)}× turn 2) / ` +
          `${coldCost.requests} requests, ${formatBytes(coldCost.bytes)} read (${(coldCost.bytes / coldAt2).toFixed(1)}× turn 2)`,
      ]);
    }
    printTable('service — DynamoDB cost of a plain turn (requests; bytes DynamoDB answered, via a counting proxy)', [
      ...rows,
      ['before the session cache', '6 requests a turn; bytes read ×34 by turn 60 (every turn read the whole log)'],
    ]);
  } finally {
    dynamo.destroy();
    await proxy.close();
    await emulator.stop();
  }
}

/** A model that writes a word a second for `ms`: a turn that outlives several lease renewals. */
class SlowProvider implements Provider {
  readonly name = 'anthropic';
  readonly model = 'bench-slow';
  constructor(private readonly ms: number) {}
  async *stream(): AsyncGenerator<ProviderEvent> {
    const start = performance.now();
    let text = '';
    yield { type: 'text-start', index: 0 };
    while (performance.now() - start < this.ms) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000, this.ms - (performance.now() - start))));
      text += 'word ';
      yield { type: 'text-delta', index: 0, delta: 'word ' };
    }
    yield { type: 'text-end', index: 0, text };
    yield {
      type: 'message-end',
      message: { role: 'assistant', content: [{ type: 'text', text }], provider: this.name, model: this.model, usage: emptyUsage(), stop_reason: 'end_turn' },
    };
  }
}

/**
 * The turn lease at the service's defaults, in real time (the two run side by side): the
 * UpdateItems a 30.5-second streamed turn sends (lease, renewals, release), and the time
 * from a holder's crash right after a renewal — the worst moment — to a turn that succeeds.
 */
async function benchLease(): Promise<void> {
  suppressNodeVersionWarning();
  const emulator = await startDynamoDBLocal();
  const proxy = await DynamoProxy.start(emulator.endpoint);
  const counted = localDynamoDBClient(proxy.endpoint);
  const direct = localDynamoDBClient(emulator.endpoint);
  const { leaseMs, leaseRenewMs } = DEFAULT_LIMITS;
  try {
    const tableName = 'panto-bench-lease';
    await createTable({ client: direct, tableName });
    const token = await signLocalToken(BENCH_SECRET, 'bench');
    const post = (target: ReturnType<typeof benchApp>, path: string, body: object) =>
      target.request(path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const turnMs = 30_500;

    const running = async (): Promise<{ updates: number; appends: number; seconds: number }> => {
      const app = benchApp(counted, tableName, new SlowProvider(turnMs));
      const { id } = (await (await post(app, '/sessions', {})).json()) as { id: string };
      proxy.resetCounts();
      const start = performance.now();
      const response = await post(app, `/sessions/${id}/messages/stream`, { text: 'write slowly' });
      const text = await response.text();
      if (!text.includes('"stop_reason":"end_turn"')) throw new Error(`the slow turn did not end: ${text.slice(-300)}`);
      const seconds = (performance.now() - start) / 1000;
      const count = (operation: string) => proxy.requests.filter((each) => each === operation).length;
      return { updates: count('UpdateItem'), appends: count('TransactWriteItems'), seconds };
    };

    const crashed = async (): Promise<number> => {
      const app = benchApp(direct, tableName, new StopwatchProvider());
      const { id } = (await (await post(app, '/sessions', {})).json()) as { id: string };
      const lease = await acquireSessionLease({ client: direct, tableName, owner: 'bench', sessionId: id, leaseMs });
      const heartbeat = keepSessionLease(lease, { renewEveryMs: leaseRenewMs });
      await waitUntil(() => heartbeat.renewals === 1, { message: 'the lease was renewed once', timeoutMs: 2 * leaseRenewMs });
      await heartbeat.stop(); // the holder dies: no more renewals, and no release
      const crashedAt = performance.now();
      let freeAfter = 0;
      await waitUntil(
        async () => {
          const response = await post(app, `/sessions/${id}/messages`, { text: 'anyone there?' });
          if (response.status === 409) return false;
          if (response.status !== 200) throw new Error(`turn failed: ${response.status} ${await response.text()}`);
          freeAfter = (performance.now() - crashedAt) / 1000;
          return true;
        },
        { message: 'a turn on the crashed session succeeds', timeoutMs: 2 * leaseMs, intervalMs: 100 },
      );
      return freeAfter;
    };

    const [turn, freeAfter] = await Promise.all([running(), crashed()]);
    // The lease rides on the turn's first append and the release on its last: every UpdateItem is a renewal.
    const renewals = turn.updates;
    printTable(`service — the turn lease (defaults: ${leaseMs / 1000} s, renewed every ${leaseRenewMs / 1000} s; real time on DynamoDB Local)`, [
      [
        `running streamed turn, ${turn.seconds.toFixed(1)} s`,
        `${renewals} renewals = ${((renewals / turn.seconds) * 60).toFixed(1)} writes/minute (one UpdateItem on META each), besides ` +
          `its own ${turn.appends} appends (the first takes the lease, the last gives it up)`,
      ],
      ['before: one lease for the whole turn', '0 renewal writes (the lease was sized to the deadline: 14.5 min streamed, 35 s synchronous)'],
      ['session free again after a crash (right after a renewal)', `${freeAfter.toFixed(1)} s (a new turn succeeds)`],
      ['before: the same crash', '870 s for a streamed turn, 35 s for a synchronous turn or a compaction (their lease terms)'],
    ]);
  } finally {
    counted.destroy();
    direct.destroy();
    await proxy.close();
    await emulator.stop();
  }
}

export async function runServiceBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'panto-bench-service-'));
  try {
    await benchBundles(dir);
    await benchTurn();
    await benchTurnCost();
    await benchLease();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runServiceBench();
