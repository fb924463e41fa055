/**
 * `npm run bench -- export`: the peak RSS of exporting a 50,000-message session against a
 * 1,000-message one (target ≤ 1.1×: an export's memory does not grow with the session).
 * Each export runs in a fresh child process (bench/aws.ts's `inChild`: `exportSession` to
 * s3rver from DynamoDB Local, peak RSS from `process.resourceUsage().maxRSS`), the two sizes
 * interleaved; the figure is each size's median.
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

const SMALL = 1_000;
const LARGE = 50_000;
const RUNS = 3;

export async function runExportBench(): Promise<void> {
  suppressNodeVersionWarning();
  const directory = await mkdtemp(join(tmpdir(), 'panto-bench-export-'));
  const [dynamoLocal, s3Local] = await Promise.all([startDynamoDBLocal(), startS3Local({ directory })]);
  try {
    const client = localDynamoDBClient(dynamoLocal.endpoint);
    await createTable({ client, tableName: TABLE });
    await localS3Client(s3Local.endpoint).send(new CreateBucketCommand({ Bucket: BUCKET }));
    const endpoints = { dynamo: dynamoLocal.endpoint, s3: s3Local.endpoint };
    const sessions = [
      { size: SMALL, id: (await fillSession(client, SMALL, 200)).sessionId(), runs: [] as ChildResult[] },
      { size: LARGE, id: (await fillSession(client, LARGE, 200)).sessionId(), runs: [] as ChildResult[] },
    ];
    for (let i = 0; i < RUNS; i++) {
      for (const session of i % 2 === 0 ? sessions : [...sessions].reverse()) {
        session.runs.push(await inChild('export', endpoints, session.id, { live: false }));
      }
    }
    const peak = (runs: readonly ChildResult[]): number => median(runs.map((each) => each.maxRssMB));
    const [small, large] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];
    const rows: Array<readonly [string, string]> = sessions.map(({ size, runs }) => {
      const bytes = runs[0]!.bytes / 1048576;
      const ms = median(runs.map((each) => each.ms));
      return [
        `${size} messages`,
        `peak RSS ${peak(runs).toFixed(0)} MB (${runs.map((each) => each.maxRssMB.toFixed(0)).join(', ')}), ${bytes.toFixed(1)} MB of JSONL in ${(ms / 1000).toFixed(1)} s`,
      ] as const;
    });
    rows.push(['ratio', `${(peak(large.runs) / peak(small.runs)).toFixed(2)}× peak RSS at ${LARGE} vs ${SMALL} (target ≤ 1.1×)`]);
    printTable(`exportSession in a fresh child process, ${LARGE} messages vs ${SMALL} (median of ${RUNS} runs each)`, rows);
  } finally {
    await Promise.all([dynamoLocal.stop(), s3Local.stop()]);
    await rm(directory, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runExportBench();
