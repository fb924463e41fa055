/**
 * The server's own CPU per plain turn, against the floor of a bare script making the same I/O
 * (`bench/turn-cpu-bare.ts`) — both in the same run, on DynamoDB Local and a fake OpenAI
 * server on loopback that streams the answer word by word, as the real one does.
 *
 * The server is the local stack's (`npm start`'s `scripts/start.ts`, in its own process, on
 * emulators this bench starts); it is driven `CONCURRENCY` sessions at a time with plain turns
 * (`POST /sessions/{id}/messages`). Each round times `TURNS_PER_ROUND` turns of the server (on the
 * same `CONCURRENCY` sessions all along, made before the warm-up), then gives the bare script the very chat-completion bodies the server
 * sent and entries the size of the ones it wrote, and times those. CPU is utime + stime of
 * each one's process tree (`/proc`), over its turns only.
 * Run alone: npx tsx --conditions=@panto/source bench/turn-cpu.ts (with `PANTO_BENCH_PROFILE=<dir>`, the
 * server and the bare script each write a CPU profile there: where the CPU goes).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { FakeLLMServer } from '@panto/core/testing';
import { localDynamoDBClient, startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { startS3Local } from '../scripts/local/s3-local.js';
import { DynamoProxy } from '../test/dynamo-proxy.js';
import type { BareTurn, BareWork } from './turn-cpu-bare.js';
import { type LocalServerProcess, spawnLocalServer } from '../test/local-server-process.js';
import { median, printTable } from './util.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONCURRENCY = 10;
const TURNS_PER_ROUND = 50;
const ROUNDS = 10;
const OWNER = 'bench';
const TABLE = 'panto-sessions';
/** About the plain turn: 1.7 KB of text, a 300-byte prompt and a 1.4 KB answer. */
const PROMPT = `How does the parser handle this part? ${'tell me about this part of the code, '.repeat(7)}`;
const ANSWER = `It reads the file and returns its lines. ${'the parser reads the file and returns its lines. '.repeat(28)}`;

/** Milliseconds of CPU (user + system) used so far by `pid` and every process under it, from one read of /proc. */
async function cpuOf(pid: number, tick: number): Promise<number> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const stats = new Map<number, { ppid: number; ticks: number }>();
  await Promise.all(
    pids.map(async (name) => {
      // Gone between the listing and the read: not ours to count.
      const text = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
      if (text === undefined) return;
      // The fields after `(comm)`, which may hold spaces: state ppid … utime (14th) stime (15th).
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(name), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    }),
  );
  let ticks = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.pop()!;
    ticks += stats.get(current)?.ticks ?? 0;
    for (const [child, { ppid }] of stats) if (ppid === current) pending.push(child);
  }
  return ticks * tick;
}

/** Waits for lines a child prints (its stdout), keeping the last ones for an error message. */
class LineWaiter {
  readonly #tail: string[];
  #waiting: { match: (line: string) => boolean; resolve: () => void } | undefined;
  #ended: (() => void) | undefined;

  constructor(child: ChildProcess, tail: string[]) {
    this.#tail = tail;
    const reader = createInterface({ input: child.stdout! });
    reader.on('line', (line) => {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      if (this.#waiting?.match(line) === true) this.#waiting.resolve();
    });
    reader.on('close', () => this.#ended?.());
  }

  /** Resolves at the next line that matches; fails if the child's output ends first. */
  next(match: (line: string) => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting = { match, resolve };
      this.#ended = () => reject(new Error(`${what} ended before it was ready:\n${this.#tail.join('\n')}`));
    });
  }
}

/** With `PANTO_BENCH_PROFILE=<dir>`, each process writes its threads' CPU profiles under `<dir>/<name>/` when it exits. */
function profiled(name: string): string[] {
  const dir = process.env.PANTO_BENCH_PROFILE;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, name)}`] : [];
}

async function call(server: LocalServerProcess, path: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** `CONCURRENCY` new sessions. */
async function newSessions(server: LocalServerProcess): Promise<string[]> {
  return Promise.all(Array.from({ length: CONCURRENCY }, async () => (await call(server, '/sessions', { system: 'Be brief.' })).id as string));
}

/** `turns` plain turns on sessions `ids`, all at a time (the turns of each in order). */
async function serverTurns(server: LocalServerProcess, ids: readonly string[], turns: number): Promise<void> {
  let left = turns;
  await Promise.all(
    ids.map(async (id) => {
      while (left > 0) {
        left--;
        await call(server, `/sessions/${id}/messages`, { text: PROMPT });
      }
    }),
  );
}

/** A prompt's and an answer's entry line as the server stored them (the size the bare script writes). */
async function storedLines(dynamodb: string, sessionId: string): Promise<{ promptLine: string; answerLine: string }> {
  const client = localDynamoDBClient(dynamodb);
  try {
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)',
        ExpressionAttributeValues: { ':pk': { S: `SESSION#${sessionId}` }, ':e': { S: 'E#' } },
      }),
    );
    const all = Items.flatMap((item) => (item.lines?.S ?? '').split('\n').filter((line) => line !== ''));
    const promptLine = all.find((line) => line.includes('"role":"user"') && line.includes('parser handle'));
    const answerLine = all.find((line) => line.includes('"role":"assistant"'));
    if (promptLine === undefined || answerLine === undefined) throw new Error(`no prompt and answer entries in session ${sessionId}`);
    return { promptLine: `${promptLine}\n`, answerLine: `${answerLine}\n` };
  } finally {
    client.destroy();
  }
}

interface Rig {
  dynamodb: string;
  fake: FakeLLMServer;
  tick: number;
  dir: string;
  env: NodeJS.ProcessEnv;
  tail: string[];
  children: ChildProcess[];
  proxy: DynamoProxy;
  server?: LocalServerProcess;
}

/** A queued answer for each of `turns` completions. */
function replies(fake: FakeLLMServer, turns: number): void {
  for (let i = 0; i < turns; i++) fake.enqueue({ text: ANSWER, usage: { input: 900, output: 320 } });
}

/** The bare script, started; the function it resolves to replays `turns` and resolves to the CPU that took. */
async function startBare(rig: Rig): Promise<(turns: BareTurn[]) => Promise<number>> {
  const workFile = join(rig.dir, 'bare.json');
  const write = (turns: BareTurn[]) =>
    writeFile(
      workFile,
      JSON.stringify({ dynamodb: rig.dynamodb, tableName: TABLE, openaiBaseURL: rig.fake.openaiBaseURL, concurrency: CONCURRENCY, turns } satisfies BareWork),
    );
  await write([]);
  const script = join(ROOT, 'bench/turn-cpu-bare.ts');
  const bare = spawn(process.execPath, [...profiled('bare'), '--import', 'tsx', '--conditions=@panto/source', script, workFile], {
    cwd: ROOT,
    env: rig.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  rig.children.push(bare);
  bare.stderr!.on('data', (chunk: Buffer) => rig.tail.push(chunk.toString('utf8')));
  const lines = new LineWaiter(bare, rig.tail);
  await lines.next((line) => line === 'ready', 'the bare script');
  return async (turns) => {
    await write(turns);
    replies(rig.fake, turns.length);
    const before = await cpuOf(bare.pid!, rig.tick);
    const done = lines.next((line) => line === 'done', 'the bare script');
    bare.stdin!.write('go\n');
    await done;
    return (await cpuOf(bare.pid!, rig.tick)) - before;
  };
}

/** Rounds side by side, so that what else the machine does weighs on both alike: each round's CPU of the server and of the bare script. */
async function measure(rig: Rig): Promise<{ serverMs: number[]; bareMs: number[]; requests: Map<string, number> }> {
  const server = await spawnLocalServer(rig.env, profiled('server'));
  rig.server = server;
  // Warm-up: the server's JIT, the SDKs' connections, and DynamoDB Local's JIT. The same
  // sessions all along: a warm process's turns on sessions it holds, as a user's next turn is.
  replies(rig.fake, 3 * CONCURRENCY);
  const ids = await newSessions(server);
  await serverTurns(server, ids, 3 * CONCURRENCY);
  const lineShapes = await storedLines(rig.dynamodb, ids[0]!);
  const bodies = (from: number): BareTurn[] =>
    rig.fake.requests.slice(from).map((request) => ({ body: request.body as Record<string, unknown>, ...lineShapes }));
  const bare = await startBare(rig);
  await bare(bodies(0)); // its warm-up, on the warm-up's bodies
  const serverMs: number[] = [];
  const bareMs: number[] = [];
  const requests = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    const from = rig.fake.requests.length;
    replies(rig.fake, TURNS_PER_ROUND);
    rig.proxy.resetCounts();
    const before = await cpuOf(server.child.pid!, rig.tick);
    await serverTurns(server, ids, TURNS_PER_ROUND);
    serverMs.push((await cpuOf(server.child.pid!, rig.tick)) - before);
    for (const operation of rig.proxy.requests) requests.set(operation, (requests.get(operation) ?? 0) + 1);
    bareMs.push(await bare(bodies(from)));
  }
  return { serverMs, bareMs, requests };
}

export async function runTurnCpuBench(): Promise<void> {
  suppressNodeVersionWarning();
  const dir = await mkdtemp(join(tmpdir(), 'panto-bench-cpu-'));
  const tick = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const dynamodbLocal = await startDynamoDBLocal();
  // Both reach DynamoDB through a counting proxy (in this process, so neither's CPU): what each turn sends.
  const proxy = await DynamoProxy.start(dynamodbLocal.endpoint);
  const s3 = await startS3Local({ directory: join(dir, 's3') });
  const fake = await FakeLLMServer.start();
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PANTO_DATA_DIR: join(dir, 'data'),
    PANTO_DYNAMODB_ENDPOINT: proxy.endpoint,
    PANTO_S3_ENDPOINT: s3.endpoint,
    PANTO_OWNER: OWNER,
    OPENAI_API_KEY: 'bench-key',
    OPENAI_BASE_URL: fake.openaiBaseURL,
  };
  const rig: Rig = { dynamodb: proxy.endpoint, fake, tick, dir, env, tail: [], children: [], proxy };
  try {
    const { serverMs, bareMs, requests } = await measure(rig);
    const turns = ROUNDS * TURNS_PER_ROUND;
    const perTurn = (ms: number[]) => `${(ms.reduce((sum, each) => sum + each, 0) / turns).toFixed(2)} ms`;
    const ratios = serverMs.map((ms, round) => ms / bareMs[round]!);
    printTable(`service — CPU per plain turn (${turns} turns each in ${ROUNDS} rounds, ${CONCURRENCY} at a time; DynamoDB Local, fake OpenAI streaming)`, [
      ['the local stack server (its process tree)', perTurn(serverMs)],
      ['a bare script: 2 TransactWriteItems of 2 items + the same streamed completion', perTurn(bareMs)],
      ["  the server's DynamoDB requests per turn", [...requests].map(([operation, n]) => `${operation} ${(n / turns).toFixed(2)}`).join(', ')],
      [
        '(1) server CPU per turn / bare, median round (target ≤ 1.3×)',
        `${median(ratios).toFixed(2)}× (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`,
      ],
    ]);
  } finally {
    await rig.server?.stop();
    for (const child of rig.children) child.kill('SIGTERM');
    await Promise.all(rig.children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
    await fake.close();
    await proxy.close();
    await s3.stop();
    await dynamodbLocal.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runTurnCpuBench();
