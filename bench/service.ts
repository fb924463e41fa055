/**
 * Service benchmarks:
 * - per Lambda handler, its bundle size and module-initialisation time (a fresh Node
 *   process importing the bundle: what a cold start pays before the first request),
 *   against a trivial handler bundled the same way;
 * - the time from a request to the provider call for a session of 1,000 messages (open the
 *   store, take the lease, load the conversation, persist the prompt), against an empty session.
 * Run alone: npx tsx --conditions=@panto/source bench/service.ts
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { S3Client } from '@aws-sdk/client-s3';
import { createTable, DynamoStore } from '@panto/aws';
import { emptyUsage, type Provider, type ProviderEvent } from '@panto/core';
import { RecordFactory } from '@panto/core/testing';
import { createApp, DEFAULT_LIMITS, hs256Verifier, signLocalToken } from '@panto/functions';
import { bundleHandlers, formatBytes, HANDLERS } from '../scripts/bundle.js';
import { localDynamoDBClient, startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { median, printTable } from './util.js';

const run = promisify(execFile);
const INIT_SAMPLES = 9;
const TURN_SAMPLES = 15;
const SESSION_MESSAGES = 1_000;

/** What SST would give the functions (see sst.config.ts), so their module scope runs as in AWS. */
const LINKED_ENV = {
  SST_RESOURCE_App: JSON.stringify({ name: 'panto', stage: 'bench' }),
  SST_RESOURCE_PantoTable: JSON.stringify({ name: 'panto-bench' }),
  SST_RESOURCE_PantoBucket: JSON.stringify({ name: 'panto-bench' }),
  SST_RESOURCE_AnthropicApiKey: JSON.stringify({ value: 'bench-key' }),
  SST_RESOURCE_OpenAIApiKey: JSON.stringify({ value: '' }),
  SST_RESOURCE_PantoAuth: JSON.stringify({ issuer: 'https://issuer.example/', audience: 'panto', jwksUrl: 'https://issuer.example/jwks' }),
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

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
      env: { PATH: process.env.PATH, ...LINKED_ENV },
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
      message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], provider: this.name, model: this.model, usage: emptyUsage(), stop_reason: 'end_turn' },
    };
  }
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
    const secret = new Uint8Array(32).fill(1);
    const app = createApp({
      dynamo,
      tableName,
      s3: new S3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
      bucket: 'unused',
      providerFactory: () => provider,
      verifier: hs256Verifier(secret),
      limits: DEFAULT_LIMITS,
    });
    const token = await signLocalToken(secret, owner);

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

export async function runServiceBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'panto-bench-service-'));
  try {
    await benchBundles(dir);
    await benchTurn();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runServiceBench();

