/**
 * `npm run bench -- adapters`: panto's DynamoDB adapters for the agent SDKs people use, each
 * against what a user of that SDK would otherwise run (bench/adapters-baselines.ts), on the
 * same DynamoDB Local and s3rver, measured in the same run: the cost of a turn at turn 2 and
 * turn 200 (requests, bytes sent and received, write units), a 500 KB entry, and two writers
 * × 20 turns on one session (acknowledged writes lost). Printed as baseline ÷ ours.
 * Run alone: npx tsx --conditions=@panto/source bench/adapters.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import type { AgentInputItem } from '@openai/agents-core';
import { createTable } from '@panto/aws';
import { DynamoSessionStore, type SessionKey, type SessionStoreEntry } from '@panto/aws/claude-agent-sdk';
import { DynamoSession } from '@panto/aws/openai-agents';
import { localDynamoDBClient, startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { localS3Client, startS3Local } from '../scripts/local/s3-local.js';
import { S3PartsSessionStore, SingleItemSession } from './adapters-baselines.js';
import { langgraphRows } from './adapters-langgraph.js';
import { BUCKET, type BenchAws, compared, type Cost, costOf, meter, type Row, TABLE } from './adapters-meter.js';
import { BIG_BYTES, lostOf, MEASURED_TURNS, TURNS, turnText, WRITER_TURNS, WRITERS } from './adapters-workload.js';
import { printTable } from './util.js';

/** A Claude Code turn as its transcript mirror appends it: one batch. */
function claudeTurn(n: number): SessionStoreEntry[] {
  const text = turnText(n);
  const entry = (type: string, content: unknown) => ({
    type,
    uuid: `u-${n}-${type}-${Math.random().toString(36).slice(2)}`,
    timestamp: new Date().toISOString(),
    message: { content },
  });
  return [
    entry('user', text.prompt),
    ...(text.toolResult === null
      ? []
      : [entry('assistant', [{ type: 'tool_use', id: `t${n}`, name: 'Read' }]), entry('user', [{ type: 'tool_result', content: text.toolResult }])]),
    entry('assistant', text.answer),
  ];
}

interface SessionStoreLike {
  append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void>;
  load(key: SessionKey): Promise<SessionStoreEntry[] | null>;
}

async function claudeRows(aws: BenchAws): Promise<Row[]> {
  const ours = () => new DynamoSessionStore({ client: aws.dynamo, tableName: TABLE, s3: { client: aws.s3, bucket: BUCKET } });
  const baseline = () => new S3PartsSessionStore(aws.s3, BUCKET);
  const key = { projectKey: 'bench', sessionId: 'claude-grown' };
  const [writer, base] = [ours(), baseline()];
  const rows: Row[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    const batch = claudeTurn(turn);
    const mine = await costOf(aws.meter, () => writer.append(key, batch));
    const theirs = await costOf(aws.meter, () => base.append(key, batch));
    if ((MEASURED_TURNS as readonly number[]).includes(turn)) {
      rows.push([`append, turn ${turn}`, compared(mine, theirs)]);
      rows.push([`resume load, turn ${turn}`, compared(await costOf(aws.meter, () => ours().load(key)), await costOf(aws.meter, () => baseline().load(key)))]);
    }
  }
  const big = [{ type: 'user', uuid: 'big', message: { content: [{ type: 'tool_result', content: 'x'.repeat(BIG_BYTES) }] } }];
  const bigKey = { projectKey: 'bench', sessionId: 'claude-big' };
  rows.push(['a 500 KB entry, appended and loaded', `ours ${await outcome(ours(), bigKey, big)} · baseline ${await outcome(baseline(), bigKey, big)}`]);
  rows.push(['a batch the SDK resends after a lost answer', `ours ${await resent(ours)} · baseline ${await resent(baseline)}`]);
  rows.push([`${WRITERS} writers × ${WRITER_TURNS} turns on one session`, `ours ${await twoWriters(ours)} · baseline ${await twoWriters(baseline)}`]);
  return rows;
}

async function outcome(store: SessionStoreLike, key: SessionKey, entries: SessionStoreEntry[]): Promise<string> {
  try {
    await store.append(key, entries);
    const back = await store.load(key);
    return JSON.stringify(back) === JSON.stringify(entries) ? 'stored and read back whole' : 'read back changed';
  } catch (error) {
    return `refused (${(error as Error).name})`;
  }
}

async function resent(make: () => SessionStoreLike): Promise<string> {
  const key = { projectKey: 'bench', sessionId: `resent-${Math.random()}` };
  const batch = claudeTurn(1);
  await make().append(key, batch);
  await make().append(key, batch);
  const stored = ((await make().load(key)) ?? []).length / batch.length;
  return `stored ${stored === 1 ? 'once' : `${stored} times`}`;
}

async function twoWriters(make: () => SessionStoreLike): Promise<string> {
  const key = { projectKey: 'bench', sessionId: `writers-${Math.random()}` };
  let acknowledged = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      const store = make();
      for (let turn = 0; turn < WRITER_TURNS; turn++) {
        await store.append(key, [{ type: 'user', uuid: `w${writer}-${turn}`, message: { content: `writer ${writer} turn ${turn}` } }]);
        acknowledged++;
      }
    }),
  );
  const found = new Set(((await make().load(key)) ?? []).map((entry) => entry.uuid)).size;
  return lostOf(acknowledged, found);
}

/** An OpenAI Agents run's session traffic: the history read before the run, the turn's items added after it. */
function openaiTurn(n: number): AgentInputItem[] {
  const text = turnText(n);
  return [
    { role: 'user', content: text.prompt },
    ...(text.toolResult === null
      ? []
      : [
          { type: 'function_call', callId: `c${n}`, name: 'read', arguments: '{}', status: 'completed' },
          { type: 'function_call_result', callId: `c${n}`, name: 'read', status: 'completed', output: { type: 'text', text: text.toolResult } },
        ]),
    { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: text.answer }] },
  ] as AgentInputItem[];
}

interface SessionLike {
  getItems(): Promise<AgentInputItem[]>;
  addItems(items: AgentInputItem[]): Promise<void>;
}

async function openaiRows(aws: BenchAws): Promise<Row[]> {
  const ours = (id: string) => new DynamoSession({ client: aws.dynamo, tableName: TABLE, s3: { client: aws.s3, bucket: BUCKET }, sessionId: id });
  const baseline = (id: string) => new SingleItemSession(aws.dynamo, TABLE, id);
  const run = (session: SessionLike, n: number) => async () => {
    await session.getItems();
    await session.addItems(openaiTurn(n));
  };
  const rows: Row[] = [];
  const [mine, theirs] = [ours('grown'), baseline('grown')];
  let refusedAt: number | null = null;
  for (let turn = 1; turn <= TURNS; turn++) {
    const ourCost = await costOf(aws.meter, run(mine, turn));
    let theirCost: Cost | string = `refused since turn ${refusedAt}`;
    if (refusedAt === null) {
      try {
        theirCost = await costOf(aws.meter, run(theirs, turn));
      } catch (error) {
        refusedAt = turn;
        theirCost = `refused since turn ${turn} (${(error as Error).name}: the item is over 400 KB)`;
      }
    }
    if ((MEASURED_TURNS as readonly number[]).includes(turn)) rows.push([`run (read history, add the turn), turn ${turn}`, compared(ourCost, theirCost)]);
  }
  const big = [{ role: 'user', content: 'y'.repeat(BIG_BYTES) }] as AgentInputItem[];
  const bigOutcome = async (session: SessionLike) =>
    session.addItems(big).then(
      async () => (JSON.stringify(await session.getItems()) === JSON.stringify(big) ? 'stored and read back whole' : 'read back changed'),
      (error: Error) => `refused (${error.name})`,
    );
  rows.push(['a 500 KB item, added and read', `ours ${await bigOutcome(ours('big'))} · baseline ${await bigOutcome(baseline('big'))}`]);
  const writers = async (make: (id: string) => SessionLike) => {
    const id = `writers-${Math.random()}`;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let t = 0; t < WRITER_TURNS; t++) await make(id).addItems([{ role: 'user', content: `w${w} t${t}` }]);
      }),
    );
    return lostOf(WRITERS * WRITER_TURNS, new Set((await make(id).getItems()).map((item) => JSON.stringify(item))).size);
  };
  rows.push([`${WRITERS} writers × ${WRITER_TURNS} turns on one session`, `ours ${await writers(ours)} · baseline ${await writers(baseline)}`]);
  return rows;
}

export async function runAdaptersBench(): Promise<void> {
  suppressNodeVersionWarning();
  const directory = await mkdtemp(join(tmpdir(), 'panto-bench-adapters-'));
  const [dynamoLocal, s3Local] = await Promise.all([startDynamoDBLocal(), startS3Local({ directory })]);
  try {
    const dynamo = localDynamoDBClient(dynamoLocal.endpoint);
    const s3 = localS3Client(s3Local.endpoint);
    await createTable({ client: dynamo, tableName: TABLE });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const aws: BenchAws = { dynamo, s3, dynamoEndpoint: dynamoLocal.endpoint, meter: meter(dynamo, s3) };
    printTable(`Claude Agent SDK: DynamoSessionStore vs Anthropic's reference S3 design (a part object per append), ${TURNS} turns`, await claudeRows(aws));
    printTable(`LangGraph.js: DynamoCheckpointSaver vs @rwai/langgraphjs-checkpoint-dynamodb 0.1.6, a chat graph, ${TURNS} turns`, await langgraphRows(aws));
    printTable(
      `OpenAI Agents SDK: DynamoSession vs one item per session appended with list_append (LangChain's DynamoDB history), ${TURNS} turns`,
      await openaiRows(aws),
    );
  } finally {
    await Promise.all([dynamoLocal.stop(), s3Local.stop()]);
    await rm(directory, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runAdaptersBench();
