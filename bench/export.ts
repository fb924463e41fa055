/**
 * `npm run bench -- export`: the peak RSS of exporting a 50,000-message session against a
 * 1,000-message one (target ≤ 1.1×: an export's memory does not grow with the session), and
 * against a 20,000-message one. Each export runs in a fresh child process (bench/aws.ts's
 * `inChild`: `exportSession` to s3rver from DynamoDB Local, peak RSS from
 * `process.resourceUsage().maxRSS`), the sizes interleaved; each figure is a median. The
 * exports run as the deployed functions run them — `NODE_OPTIONS=--expose-gc`, so the export
 * collects after each 5 MB part (`exposedGarbageCollector`) — then once more without it (the
 * garbage V8 lets pile up before its heap limit grows, which a 1,000-message export ends
 * before it reaches), and once more with a full GC every 50 ms (the child's live sampler):
 * what the export itself holds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { createTable } from '@panto/aws';
import { localDynamoDBClient, startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { localS3Client, startS3Local } from '../scripts/local/s3-local.js';
import { BUCKET, type ChildResult, fillSession, inChild, TABLE } from './aws.js';
import { median, printTable } from './util.js';

const SIZES = [1_000, 20_000, 50_000] as const;
const RUNS = 3;
/** `NODE_OPTIONS` of the deployed functions that export (infra/lambda.ts). */
const AS_DEPLOYED = ['--expose-gc'];

interface Session {
  size: number;
  id: string;
  runs: ChildResult[];
  /** Without `--expose-gc`: no collection between parts. */
  plain: ChildResult[];
  collected: ChildResult[];
}

const peak = (runs: readonly ChildResult[]): number => median(runs.map((each) => each.maxRssMB));

function rowsOf(sessions: readonly Session[]): Array<readonly [string, string]> {
  const [small, middle, large] = sessions as [Session, Session, Session];
  const rows: Array<readonly [string, string]> = sessions.map(({ size, runs, plain, collected }) => {
    const ms = median(runs.map((each) => each.ms));
    const all = runs.map((each) => each.maxRssMB.toFixed(0)).join(', ');
    return [
      `${size} messages`,
      `peak RSS ${peak(runs).toFixed(0)} MB (${all}; ${median(runs.map((each) => each.baselineRssMB)).toFixed(0)} MB before), ` +
        `${(runs[0]!.bytes / 1048576).toFixed(1)} MB of JSONL in ${(ms / 1000).toFixed(1)} s; ${peak(plain).toFixed(0)} MB without --expose-gc, ` +
        `${peak(collected).toFixed(0)} MB with a GC every 50 ms (live at most ${median(collected.map((each) => each.liveHeapMB)).toFixed(0)} MB heap + ` +
        `${median(collected.map((each) => each.liveExternalMB)).toFixed(0)} MB buffers)`,
    ] as const;
  });
  const ratio = (a: Session, b: Session, of: (session: Session) => ChildResult[]) => `${(peak(of(a)) / peak(of(b))).toFixed(2)}×`;
  rows.push([
    `ratio ${large.size} / ${small.size}`,
    `${ratio(large, small, (each) => each.runs)} peak RSS (target ≤ 1.1×); ${ratio(large, small, (each) => each.plain)} without --expose-gc; ` +
      `${ratio(large, small, (each) => each.collected)} with a GC every 50 ms`,
  ]);
  rows.push([
    `ratio ${large.size} / ${middle.size}`,
    `${ratio(large, middle, (each) => each.runs)} peak RSS; ${ratio(large, middle, (each) => each.plain)} without --expose-gc; ` +
      `${ratio(large, middle, (each) => each.collected)} with a GC every 50 ms`,
  ]);
  return rows;
}

export async function runExportBench(): Promise<void> {
  suppressNodeVersionWarning();
  const directory = await mkdtemp(join(tmpdir(), 'panto-bench-export-'));
  const [dynamoLocal, s3Local] = await Promise.all([startDynamoDBLocal(), startS3Local({ directory })]);
  try {
    const client = localDynamoDBClient(dynamoLocal.endpoint);
    await createTable({ client, tableName: TABLE });
    await localS3Client(s3Local.endpoint).send(new CreateBucketCommand({ Bucket: BUCKET }));
    const endpoints = { dynamo: dynamoLocal.endpoint, s3: s3Local.endpoint };
    const sessions: Session[] = [];
    for (const size of SIZES) sessions.push({ size, id: (await fillSession(client, size, 200)).sessionId(), runs: [], plain: [], collected: [] });
    for (let i = 0; i < RUNS; i++) {
      for (const session of i % 2 === 0 ? sessions : [...sessions].reverse()) {
        session.runs.push(await inChild('export', endpoints, session.id, { live: false, nodeFlags: AS_DEPLOYED }));
        session.plain.push(await inChild('export', endpoints, session.id, { live: false }));
        session.collected.push(await inChild('export', endpoints, session.id, { live: true }));
      }
    }
    printTable(`exportSession in a fresh child process as deployed (--expose-gc), by session size (median of ${RUNS} runs each)`, rowsOf(sessions));
  } finally {
    await Promise.all([dynamoLocal.stop(), s3Local.stop()]);
    await rm(directory, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runExportBench();
