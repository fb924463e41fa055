/**
 * `npm run bench -- local-load`: the local stack (`npm start`: scripts/start.ts in its own
 * process) under 100 sessions × 10 turns at once — every session's turns in sequence, all
 * sessions concurrently — with the OpenAI provider's SDK calling a FakeLLMServer on loopback
 * over HTTP. The server starts its own s3rver, as `npm start` does, and keeps its DynamoDB
 * Local data on disk (`-dbPath` in the data folder, as `npm start` does), reached through a
 * counting TCP proxy: the most connections the server's DynamoDB client held open at once is
 * the number of requests it had in flight at once (a keep-alive pool opens a socket only when
 * none is free), which is what its pool has to hold without queueing.
 *
 * Prints whether the server logged the AWS SDK's pool warning (`socket usage at capacity=…
 * and … additional requests are enqueued`), the turns per second, p50/p99 turn latency, and
 * that peak. The baseline of the ratio is the same load's own median: p99 / p50 shows the
 * queueing the pool adds to the slowest turns.
 * Run alone: npx tsx --conditions=@panto/source bench/local-load.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { FakeLLMServer } from '@panto/core/testing';
import { startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { DynamoProxy } from '../test/dynamo-proxy.js';
import { type LocalServerProcess, spawnLocalServer } from '../test/local-server-process.js';
import { median, percentile, printTable } from './util.js';

const SESSIONS = 100;
const TURNS = 10;
const POOL_WARNING = /socket usage at capacity=(\d+) and (\d+) additional requests are enqueued/;
/** Sessions created at once, then `TURNS` turns on each, the sessions concurrently: each turn's latency, and the wall time. */
async function load(server: LocalServerProcess): Promise<{ latencies: number[]; ms: number }> {
  const post = async (path: string, body: object): Promise<unknown> => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 200 && response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const ids = await Promise.all(Array.from({ length: SESSIONS }, async () => ((await post('/sessions', { system: 'Be brief.' })) as { id: string }).id));
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      for (let turn = 0; turn < TURNS; turn++) {
        const begun = performance.now();
        await post(`/sessions/${id}/messages`, { text: `Question ${turn}: ${'tell me about this part of the code '.repeat(4)}` });
        latencies.push(performance.now() - begun);
      }
    }),
  );
  return { latencies, ms: performance.now() - start };
}

export async function runLocalLoadBench(): Promise<void> {
  suppressNodeVersionWarning();
  const dataDir = await mkdtemp(join(tmpdir(), 'panto-bench-load-'));
  const fake = await FakeLLMServer.start();
  for (let i = 0; i < SESSIONS * TURNS; i++)
    fake.enqueue({ text: `It reads the file and returns its lines. ${'x'.repeat(200)}`, usage: { input: 60, output: 40 } });
  const dynamodb = await startDynamoDBLocal({ dataDir: join(dataDir, 'dynamodb') });
  const proxy = await DynamoProxy.start(dynamodb.endpoint);
  let server: LocalServerProcess | undefined;
  try {
    server = await spawnLocalServer({
      PANTO_DATA_DIR: dataDir,
      PANTO_S3_PORT: '0',
      PANTO_DYNAMODB_ENDPOINT: proxy.endpoint,
      PANTO_PROVIDER: 'openai',
      PANTO_MODEL: 'bench-model',
      OPENAI_API_KEY: 'bench-key',
      OPENAI_BASE_URL: fake.openaiBaseURL,
    });
    const { latencies, ms } = await load(server);
    const operations = new Map<string, number>();
    for (const operation of proxy.requests) operations.set(operation, (operations.get(operation) ?? 0) + 1);
    const perTurn = [...operations].map(([operation, count]) => `${operation} ${(count / latencies.length).toFixed(1)}`).join(', ');
    const warning = POOL_WARNING.exec(server.output());
    const [p50, p99] = [median(latencies), percentile(latencies, 99)];
    printTable(`local stack under load — ${SESSIONS} sessions × ${TURNS} turns at once (npm start's server, OpenAI SDK → fake server on loopback)`, [
      ['AWS SDK pool warning', warning ? `YES: ${warning[0]}` : 'none'],
      ['turns / s', `${((latencies.length / ms) * 1000).toFixed(0)} (${latencies.length} turns in ${(ms / 1000).toFixed(1)} s)`],
      ['turn latency p50 / p99', `${p50.toFixed(0)} ms / ${p99.toFixed(0)} ms (p99 = ${(p99 / p50).toFixed(1)}× p50)`],
      ['DynamoDB requests in flight at once (peak connections)', `${proxy.peakConnections}`],
      ['DynamoDB requests per turn (sessions created included)', `${(proxy.requests.length / latencies.length).toFixed(1)}: ${perTurn}`],
    ]);
  } finally {
    await server?.stop();
    await proxy.close();
    await dynamodb.stop();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runLocalLoadBench();
