/**
 * `npm run bench -- lambda-memory`: the memory the api function needs, from which its memory
 * size is chosen (infra/lambda.ts `API_MEMORY_MB`). The api handler bundled as sst.config.ts
 * deploys it runs in a fresh Node process with what SST links, against DynamoDB Local (behind
 * a counting proxy) and the Anthropic SDK calling a FakeLLMServer on loopback; it is handed
 * `TURNS` warm turns as API Gateway events, one at a time as Lambda hands them, and reports
 * its peak RSS (`process.resourceUsage().maxRSS`) after each — on a new session, and on one of
 * `LONG_SESSION` messages, whose first turn reads the whole log. Baseline: the SDK-floor
 * handler (bench/fixtures/sdk-floor-handler.ts: the DynamoDB and S3 clients, nothing else)
 * invoked in a fresh process the same way. Also the most DynamoDB requests a turn has in
 * flight at once (the proxy's peak connections), which sizes the Lambda pool (http-pool.ts).
 * Run alone: npx tsx --conditions=@panto/source bench/lambda-memory.ts
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createTable, DynamoStore } from '@panto/aws';
import { FakeLLMServer, RecordFactory } from '@panto/core/testing';
import { bundleHandlers, HANDLERS, LAMBDA_LINKED_ENV } from '../scripts/bundle.js';
import { localDynamoDBClient, startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { API_MEMORY_MB } from '../infra/lambda.js';
import { DynamoProxy } from '../test/dynamo-proxy.js';
import { turnEvent } from './turn-writes.js';
import { printTable } from './util.js';

const run = promisify(execFile);
const TURNS = 200;
const LONG_SESSION = 2_000;
/** Turns before growth is counted from: the first loads the provider SDK's chunk and fills the session cache. */
const SETTLED_AFTER = 10;
const OWNER = 'bench';
const TABLE = 'panto-bench-memory';
const floorEntry = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/sdk-floor-handler.ts');
const ANSWER = `It reads the file and returns its lines. ${'it reads the file and returns its lines. '.repeat(20)}`;
const PROMPT = `How does the parser handle this? ${'tell me about this part of the code '.repeat(5)}`;

interface Measured {
  imported: number;
  after: number[];
  /** The heap in use after a full collection (MB), after turn SETTLED_AFTER and after the last: what turns leave behind. */
  heap: number[];
}

/** Peak RSS in MB after the import and after each of `turns` invocations of `event`, in a fresh process. */
async function peaks(file: string, event: object, turns: number, env: Record<string, string>): Promise<Measured> {
  const script = `
    const mb = () => process.resourceUsage().maxRSS / 1024;
    const retained = () => (globalThis.gc(), process.memoryUsage().heapUsed / 1024 / 1024);
    const heap = [];
    const { handler } = await import(${JSON.stringify(pathToFileURL(file).href)});
    const imported = mb();
    const after = [];
    const event = ${JSON.stringify(event)};
    for (let i = 0; i < ${turns}; i++) {
      const result = await handler({ ...event, requestContext: { ...event.requestContext, timeEpoch: Date.now() } });
      if ((result.statusCode ?? 500) >= 300) throw new Error('turn ' + i + ': ' + result.statusCode + ' ' + result.body);
      after.push(mb());
      // Only where nothing after it is measured: a full collection lowers the next turns' peaks.
      if (i === ${SETTLED_AFTER - 1} || i === ${turns - 1}) heap.push(retained());
    }
    process.stdout.write('\\n' + JSON.stringify({ imported, after, heap }));
    process.exit(0);`;
  // --expose-gc, as the deployed api function runs (infra/lambda.ts STREAMING_NODE_OPTIONS).
  const { stdout } = await run(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...LAMBDA_LINKED_ENV, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  // The handler's own log lines (Powertools' metrics) come first; the figures are the last line.
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Measured;
}

/** A session of `messages` messages (a system prompt and question/answer pairs), written in batches. */
async function session(dynamo: ReturnType<typeof localDynamoDBClient>, messages: number): Promise<string> {
  const store = await DynamoStore.create({ client: dynamo, tableName: TABLE, owner: OWNER });
  const f = new RecordFactory(`s${messages}`);
  await store.appendMessages([f.user('Be brief.', 'anthropic', 'claude-bench')]);
  for (let i = 1; i < messages; i += 100) {
    const batch = [];
    for (let j = i; j < Math.min(messages, i + 100); j += 2)
      batch.push(f.user(PROMPT, 'anthropic', 'claude-bench'), f.assistant(ANSWER, { provider: 'anthropic', model: 'claude-bench' }));
    await store.appendMessages(batch);
  }
  return store.sessionId();
}

function describe(label: string, measured: Measured): Array<readonly [string, string]> {
  const peak = measured.after.at(-1)!;
  const turns = measured.after.length - SETTLED_AFTER;
  const growth = ((peak - measured.after[SETTLED_AFTER - 1]!) * 1024) / turns;
  const [settledHeap = 0, lastHeap = 0] = measured.heap;
  return [
    [
      `${label}: peak RSS after import / 1st turn / ${measured.after.length} turns`,
      `${measured.imported.toFixed(0)} / ${measured.after[0]!.toFixed(0)} / ${peak.toFixed(0)} MB`,
    ],
    [
      `${label}: per warm turn (turns ${SETTLED_AFTER}–${measured.after.length}), peak RSS growth / heap left after a full GC`,
      `${growth.toFixed(0)} KB / ${(((lastHeap - settledHeap) * 1024) / turns).toFixed(1)} KB (heap ${settledHeap.toFixed(1)} → ${lastHeap.toFixed(1)} MB)`,
    ],
  ];
}

export async function runLambdaMemoryBench(): Promise<void> {
  suppressNodeVersionWarning();
  const dir = await mkdtemp(join(tmpdir(), 'panto-bench-memory-'));
  const emulator = await startDynamoDBLocal();
  const proxy = await DynamoProxy.start(emulator.endpoint);
  const dynamo = localDynamoDBClient(emulator.endpoint);
  const fake = await FakeLLMServer.start();
  try {
    const reports = await bundleHandlers({ api: HANDLERS.api, 'sdk-floor': floorEntry }, join(dir, 'bundles'));
    const file = (name: string) => reports.find((report) => report.name === name)!.file;
    await createTable({ client: dynamo, tableName: TABLE });
    const env = {
      SST_RESOURCE_PantoTable: JSON.stringify({ name: TABLE }),
      AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
      PANTO_MODEL: 'claude-bench',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    };
    for (let i = 0; i < 2 * TURNS + 2; i++) fake.enqueue({ text: ANSWER, usage: { input: 900, output: 120 } });
    const floor = await peaks(file('sdk-floor'), {}, 1, env);
    const short = await peaks(file('api'), turnEvent(await session(dynamo, 1), PROMPT), TURNS, env);
    const long = await peaks(file('api'), turnEvent(await session(dynamo, LONG_SESSION), PROMPT), TURNS, env);
    const peak = Math.max(short.after.at(-1)!, long.after.at(-1)!);
    printTable(`Lambda memory — the bundled api handler, ${TURNS} turns one at a time in a fresh node (DynamoDB Local, Anthropic SDK → fake server)`, [
      ['SDK-floor handler: peak RSS after one invocation (baseline)', `${floor.after[0]!.toFixed(0)} MB`],
      ...describe('new session', short),
      ...describe(`${LONG_SESSION}-message session`, long),
      ['peak RSS / the SDK floor', `${(peak / floor.after[0]!).toFixed(2)}×`],
      [`the api function's memory (${API_MEMORY_MB} MB) / peak RSS (target ≥ 2×)`, `${(API_MEMORY_MB / peak).toFixed(2)}×`],
      ['DynamoDB requests in flight at once, most in any turn (proxy peak connections)', `${proxy.peakConnections}`],
    ]);
  } finally {
    dynamo.destroy();
    await fake.close();
    await proxy.close();
    await emulator.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runLambdaMemoryBench();
