/**
 * @panto/aws benchmarks, on DynamoDB Local and s3rver started for the run:
 *  1. a session grown to 200 turns (user ~200 chars, assistant ~1,500, every other turn a
 *     tool call + 4 KB result): round trips, request bytes and consumed write units per
 *     turn, at turns 1, 50 and 200 (and their neighbours, the other kind of turn) — flat;
 *  2. loading 1,000 messages against a bare paginated Query of the same items (≤ 1.3×);
 *  3. a child process exporting 1,000, 20,000 and 50,000 messages: its peak RSS, and the
 *     memory still live after a GC (sampled in a second run with --expose-gc) — flat. Peak
 *     RSS also holds garbage V8 has not collected yet (up to ~64 MB of dead response
 *     buffers before an external-memory GC): a fixed ceiling, not a function of size;
 *  4. the 20,000-message session archived (archiveSession: the same JSONL streamed to S3,
 *     read back, items removed) and restored (restoreSession: streamed back into items),
 *     each in a child process, against its export as the baseline: time, peak RSS, and
 *     live heap and external memory after GCs.
 * Run alone: npx tsx --conditions=@panto/source bench/aws.ts
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { CreateBucketCommand, DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { archiveSession, createTable, DynamoStore, exportSession, exposedGarbageCollector, restoreSession } from '@panto/aws';
import type { DiskMessage } from '@panto/core';
import { RecordFactory } from '@panto/core/testing';
import { localDynamoDBClient, startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { localS3Client, startS3Local } from '../scripts/local/s3-local.js';
import { median, printTable, time } from './util.js';

const TURNS = 200;
const LOAD_MESSAGES = 1_000;
const LOAD_RUNS = 30;
const EXPORT_SIZES = [1_000, 20_000, 50_000] as const;
/** The session archived and restored, against its export. */
const ARCHIVE_SIZE = 20_000;
export const TABLE = 'bench-sessions';
export const BUCKET = 'bench-sessions';
const OWNER = 'bench';

/** One turn as the agent appends it: the prompt, then the reply (after a tool call and its result on odd turns). */
function turn(f: RecordFactory, n: number): DiskMessage[][] {
  const user = f.user(`Turn ${n}: ${'please look at this part of the code and explain it '.repeat(4)}`.slice(0, 200));
  const answer = f.assistant(`Answer ${n}: ${'the function reads the file and returns its lines. '.repeat(30)}`.slice(0, 1500), {
    usage: { input_tokens: 1200 + n, output_tokens: 300 },
  });
  if (n % 2 === 0) return [[user], [answer]];
  const call = f.message({
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me read it.' },
      { type: 'tool_call', id: `call_${n}`, name: 'read', input: { path: `src/file-${n}.ts`, limit: 200 } },
    ],
    provider: 'scripted',
    model: 'scripted-1',
    usage: { input_tokens: 1200 + n, output_tokens: 40, cache_read_tokens: 1000, cache_write_tokens: 0 },
    stop_reason: 'tool_use',
  });
  const result = f.message({ role: 'tool_result', tool_call_id: `call_${n}`, tool_name: 'read', content: 'x'.repeat(4096), is_error: false });
  return [[user], [call], [result], [answer]];
}

interface Meter {
  requests: number;
  requestBytes: number;
  writeUnits: number;
  queries: number;
  reset(): void;
}

/**
 * Counts HTTP round trips (each attempt, retries included) and their body bytes, and asks
 * every transaction for its consumed capacity.
 */
function meter(client: DynamoDBClient): Meter {
  const m: Meter = {
    requests: 0,
    requestBytes: 0,
    writeUnits: 0,
    queries: 0,
    reset() {
      this.requests = 0;
      this.requestBytes = 0;
      this.writeUnits = 0;
      this.queries = 0;
    },
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand') (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      if (context.commandName === 'QueryCommand') m.queries++;
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: Array<{ CapacityUnits?: number }> }).ConsumedCapacity;
      for (const each of consumed ?? []) m.writeUnits += each.CapacityUnits ?? 0;
      return result;
    },
    { step: 'initialize', name: 'benchCapacity' },
  );
  client.middlewareStack.add(
    (next) => async (args) => {
      m.requests++;
      const body = (args.request as { body?: unknown }).body;
      if (typeof body === 'string') m.requestBytes += Buffer.byteLength(body);
      else if (body instanceof Uint8Array) m.requestBytes += body.byteLength;
      return next(args);
    },
    { step: 'deserialize', name: 'benchRoundTrips' },
  );
  return m;
}

async function growSession(client: DynamoDBClient, m: Meter): Promise<Array<readonly [string, string]>> {
  const store = await DynamoStore.create({ client, tableName: TABLE, owner: OWNER });
  const f = new RecordFactory('grow');
  const rows: Array<readonly [string, string]> = [];
  const report = new Set([1, 2, 50, 51, 199, 200]);
  for (let n = 1; n <= TURNS; n++) {
    m.reset();
    for (const batch of turn(f, n)) await store.appendMessages(batch);
    if (report.has(n)) {
      const kind = n % 2 === 0 ? 'plain   ' : 'tool    ';
      rows.push([
        `turn ${String(n).padStart(3)} (${kind.trim()})`,
        `${m.requests} round trips, ${String(m.requestBytes).padStart(6)} request bytes, ${m.writeUnits} write units (${store.metadata().entryCount} entries so far)`,
      ]);
    }
  }
  return rows;
}

export async function fillSession(client: DynamoDBClient, messages: number, batchMessages: number): Promise<DynamoStore> {
  const store = await DynamoStore.create({ client, tableName: TABLE, owner: OWNER });
  const f = new RecordFactory(`fill${messages}`);
  let pending: DiskMessage[] = [];
  let written = 0;
  for (let n = 1; written < messages; n++) {
    for (const batch of turn(f, n)) {
      for (const record of batch) {
        if (written >= messages) break;
        pending.push(record);
        written++;
      }
      if (pending.length >= batchMessages) {
        await store.appendMessages(pending);
        pending = [];
      }
    }
  }
  if (pending.length > 0) await store.appendMessages(pending);
  return store;
}

async function bareQuery(client: DynamoDBClient, sessionId: string): Promise<number> {
  let pages = 0;
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `SESSION#${sessionId}` } },
        ConsistentRead: true,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    pages++;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return pages;
}

async function compareLoad(client: DynamoDBClient, m: Meter): Promise<Array<readonly [string, string]>> {
  // Appended a turn's batch at a time, as the agent does: one or two messages per item.
  const store = await fillSession(client, LOAD_MESSAGES, 1);
  const handle = await DynamoStore.open({ client, tableName: TABLE, owner: OWNER, sessionId: store.sessionId() });
  for (let i = 0; i < 3; i++) {
    await handle.loadConversation();
    await bareQuery(client, store.sessionId());
  }
  m.reset();
  await handle.loadConversation();
  const storePages = m.queries;
  const storeRoundTrips = m.requests;
  const bare: number[] = [];
  const loads: number[] = [];
  let barePages = 0;
  const runBare = async (): Promise<void> => {
    bare.push(
      await time(async () => {
        barePages = await bareQuery(client, store.sessionId());
      }),
    );
  };
  const runLoad = async (): Promise<void> => void loads.push(await time(() => handle.loadConversation()));
  for (let i = 0; i < LOAD_RUNS; i++) {
    // Alternate which goes first, so neither always pays for the other's garbage.
    if (i % 2 === 0) {
      await runBare();
      await runLoad();
    } else {
      await runLoad();
      await runBare();
    }
  }
  const ratio = median(loads) / median(bare);
  return [
    ['messages', `${LOAD_MESSAGES} (${store.metadata().entryCount} entries)`],
    ['bare paginated Query', `${median(bare).toFixed(1)} ms median, ${barePages} pages`],
    ['DynamoStore.loadConversation', `${median(loads).toFixed(1)} ms median, ${storePages} Query pages, ${storeRoundTrips} round trips`],
    ['ratio', `${ratio.toFixed(2)}× (target ≤ 1.3×)`],
  ];
}

export interface ChildResult {
  maxRssMB: number;
  baselineRssMB: number;
  /** Largest heap and external memory still live after a GC (0 unless run with --expose-gc). */
  liveHeapMB: number;
  liveExternalMB: number;
  bytes: number;
  entries: number;
  ms: number;
}

/** What a child process does to the session: export it, archive it, or restore it. */
type ChildWork = 'export' | 'archive' | 'restore';

/** Runs `work` on a session in a fresh child process and reports its peak RSS. */
export async function inChild(
  work: ChildWork,
  env: { dynamo: string; s3: string },
  sessionId: string,
  options: { live: boolean; nodeFlags?: readonly string[] },
): Promise<ChildResult> {
  const self = fileURLToPath(import.meta.url);
  const flags = [...(options.live ? ['--expose-gc'] : []), ...(options.nodeFlags ?? [])];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = spawn(process.execPath, [...flags, '--import', tsx, '--conditions=@panto/source', self, '--child', work, sessionId], {
    env: { ...process.env, BENCH_DYNAMO: env.dynamo, BENCH_S3: env.s3, ...(options.live ? { BENCH_LIVE: '1' } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${work} child exited with ${String(code)}: ${out}`);
  return JSON.parse(out.trim().split('\n').pop()!) as ChildResult;
}

async function child(work: ChildWork, sessionId: string): Promise<void> {
  suppressNodeVersionWarning();
  const dynamo = localDynamoDBClient(process.env.BENCH_DYNAMO!);
  const s3 = localS3Client(process.env.BENCH_S3!);
  // Live runs: collect every 50 ms and keep the largest live heap and external memory.
  const gc = process.env.BENCH_LIVE === '1' ? (globalThis as { gc?: () => void }).gc : undefined;
  // As the deployed functions run it: a full collection after each part, when --expose-gc is on.
  const collectGarbage = exposedGarbageCollector();
  const collect = collectGarbage === undefined ? {} : { collectGarbage };
  let liveHeapMB = 0;
  let liveExternalMB = 0;
  const sampler =
    gc === undefined
      ? undefined
      : setInterval(() => {
          gc();
          const usage = process.memoryUsage();
          liveHeapMB = Math.max(liveHeapMB, usage.heapUsed / 1048576);
          liveExternalMB = Math.max(liveExternalMB, usage.external / 1048576);
        }, 50);
  const baselineRssMB = process.resourceUsage().maxRSS / 1024;
  const start = performance.now();
  let bytes = 0;
  let entries = 0;
  switch (work) {
    case 'export': {
      ({ bytes, entries } = await exportSession({ dynamo, tableName: TABLE, s3, bucket: BUCKET, owner: OWNER, sessionId, ...collect }));
      break;
    }
    case 'archive': {
      const outcome = await archiveSession({
        client: dynamo,
        tableName: TABLE,
        s3: { client: s3, bucket: BUCKET },
        sessionId,
        cutoff: new Date(Date.now() + 60_000),
        ...collect,
      });
      if (outcome.result !== 'archived' || outcome.reused) throw new Error(`not archived anew: ${JSON.stringify(outcome)}`);
      ({ bytes, entries } = outcome);
      break;
    }
    case 'restore': {
      const { restored } = await restoreSession({ client: dynamo, tableName: TABLE, owner: OWNER, sessionId, s3: { client: s3, bucket: BUCKET } });
      if (!restored) throw new Error('not restored');
      break;
    }
    default: {
      const never: never = work;
      throw new Error(`unknown work ${String(never)}`);
    }
  }
  const ms = performance.now() - start;
  if (sampler !== undefined) clearInterval(sampler);
  const maxRssMB = process.resourceUsage().maxRSS / 1024;
  const report: ChildResult = { maxRssMB, baselineRssMB, liveHeapMB, liveExternalMB, bytes, entries, ms };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function describeRun(plain: ChildResult, live: ChildResult): string {
  return (
    `${(plain.bytes / 1048576).toFixed(1)} MB in ${(plain.ms / 1000).toFixed(1)} s: peak RSS ${plain.maxRssMB.toFixed(0)} MB ` +
    `(${plain.baselineRssMB.toFixed(0)} MB before); live after GC at most ${live.liveHeapMB.toFixed(0)} MB heap + ${live.liveExternalMB.toFixed(0)} MB external`
  );
}

/**
 * Archives and restores the session twice: once for time and peak RSS, once sampling live
 * memory with GCs. Between the two, the archive a restore keeps is removed, so the second
 * archive uploads again instead of reusing it.
 */
async function archiveAndRestore(
  s3: S3Client,
  endpoints: { dynamo: string; s3: string },
  { sessionId, exported }: { sessionId: string; exported: readonly [ChildResult, ChildResult] },
): Promise<Array<readonly [string, string]>> {
  const runs: Record<ChildWork, ChildResult[]> = { export: [...exported], archive: [], restore: [] };
  for (const live of [false, true]) {
    runs.archive.push(await inChild('archive', endpoints, sessionId, { live }));
    runs.restore.push(await inChild('restore', endpoints, sessionId, { live }));
    const { Contents: objects = [] } = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `archive/${sessionId}/` }));
    for (const object of objects) await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: object.Key }));
  }
  const baseline = runs.export[0]!;
  return (['export', 'archive', 'restore'] as const).map((work) => {
    const [plain, live] = runs[work] as [ChildResult, ChildResult];
    const ratio =
      work === 'export' ? '(baseline)' : `(${(plain.ms / baseline.ms).toFixed(2)}× time, ${(plain.maxRssMB / baseline.maxRssMB).toFixed(2)}× peak RSS)`;
    return [work, `${describeRun({ ...plain, bytes: baseline.bytes }, live)} ${ratio}`] as const;
  });
}

export async function runAwsBench(): Promise<void> {
  suppressNodeVersionWarning();
  const directory = await mkdtemp(join(tmpdir(), 'panto-bench-s3-'));
  const [dynamoLocal, s3Local] = await Promise.all([startDynamoDBLocal(), startS3Local({ directory })]);
  try {
    const client = localDynamoDBClient(dynamoLocal.endpoint);
    const s3 = localS3Client(s3Local.endpoint);
    await createTable({ client, tableName: TABLE });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const m = meter(client);

    printTable(`DynamoStore: a session grown to ${TURNS} turns, cost per turn (flat = independent of session length)`, await growSession(client, m));
    printTable(`DynamoStore: load ${LOAD_MESSAGES} messages vs a bare paginated Query (${LOAD_RUNS} runs)`, await compareLoad(client, m));

    const rows: Array<readonly [string, string]> = [];
    const endpoints = { dynamo: dynamoLocal.endpoint, s3: s3Local.endpoint };
    let archived: { sessionId: string; exported: readonly [ChildResult, ChildResult] } | undefined;
    for (const size of EXPORT_SIZES) {
      const store = await fillSession(client, size, 200);
      const plain = await inChild('export', endpoints, store.sessionId(), { live: false });
      const live = await inChild('export', endpoints, store.sessionId(), { live: true });
      if (size === ARCHIVE_SIZE) archived = { sessionId: store.sessionId(), exported: [plain, live] };
      rows.push([`${size} messages`, describeRun(plain, live)]);
    }
    printTable('exportSession in a child process: peak RSS, and live memory sampled with a GC every 50 ms (flat = independent of session size)', rows);
    if (archived !== undefined)
      printTable(
        `a ${ARCHIVE_SIZE}-message session archived and restored, each in a child process, against its export`,
        await archiveAndRestore(s3, endpoints, archived),
      );
  } finally {
    await Promise.all([dynamoLocal.stop(), s3Local.stop()]);
    await rm(directory, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const index = process.argv.indexOf('--child');
  if (index !== -1) await child(process.argv[index + 1] as ChildWork, process.argv[index + 2]!);
  else await runAwsBench();
}
