/**
 * A service turn's writes, on DynamoDB Local, each against a baseline measured in the same run:
 * - (a) the time from a turn's request to its provider call in a warm process, divided by
 *   one bare `TransactWriteItems` (a META update and one entry put) on the same table: the
 *   floor for "the prompt durable before the provider call". The request is what the
 *   deployed api function is handed — an API Gateway event, through the same Lambda adapter,
 *   with the claims its JWT authorizer verified (`apiGatewayVerifier`); the local stack's
 *   path, which verifies an HS256 token itself, is printed beside it;
 * - (b) the write capacity a plain turn consumes (every write it sends, as DynamoDB reports
 *   it), divided by a reference that writes the same two messages in one transaction — for a
 *   short answer and a long one — and the size of META, which every write updates.
 * Run alone: npx tsx --conditions=@panto/source bench/turn-writes.ts
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { type DynamoDBClient, GetItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { createTable, DynamoStore, SessionCache } from '@panto/aws';
import { emptyUsage, type Provider, type ProviderEvent } from '@panto/core';
import { RecordFactory } from '@panto/core/testing';
import { type AppDeps, apiGatewayVerifier, createApp, DEFAULT_SERVICE_LIMITS, handle } from '@panto/functions';
import { hs256Verifier, signLocalToken } from '@panto/functions/local';
import { localDynamoDBClient, startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { type ByteMeter, byteMeter, describeUnits, transactionTimer, type WriteMeter, writeMeter } from './dynamo-meters.js';
import { median, printTable } from './util.js';

const SAMPLES = 41;
const WARM_UP = 10;
/** Bare transactions sent before anything is timed: DynamoDB Local's JIT warms up over the first hundreds of requests. */
const EMULATOR_WARM_UP = 600;
const LONG_SESSION = 2_000;
const SHORT_SESSION = 100;
const SECRET = new Uint8Array(32).fill(7);
const OWNER = 'bench';
const PROMPT = `How does the parser handle this? ${'tell me about this part of the code '.repeat(5)}`;
const SHORT_ANSWER = `It reads the file. ${'x'.repeat(180)}`;
/** The plain turn: 1.7 KB of text, a 300-byte prompt and a 1.4 KB answer (as bench/turn-cpu.ts sends). */
const PLAIN_PROMPT = `How does the parser handle this part? ${'tell me about this part of the code, '.repeat(7)}`;
const PLAIN_ANSWER = `It reads the file and returns its lines. ${'the parser reads the file and returns its lines. '.repeat(28)}`;
const LONG_ANSWER = `It reads the file and returns its lines. ${'it reads the file and returns its lines. '.repeat(100)}`;

/** Answers `answer` at once, noting when it was called. */
class StopwatchProvider implements Provider {
  readonly name = 'anthropic';
  readonly model = 'bench';
  calledAt = 0;
  answer = SHORT_ANSWER;
  async *stream(): AsyncGenerator<ProviderEvent> {
    this.calledAt = performance.now();
    const text = this.answer;
    yield { type: 'text-start', index: 0 };
    yield { type: 'text-end', index: 0, text };
    yield {
      type: 'message-end',
      message: { role: 'assistant', content: [{ type: 'text', text }], provider: this.name, model: this.model, usage: emptyUsage(), stop_reason: 'end_turn' },
    };
  }
}

interface Stack {
  dynamo: DynamoDBClient;
  tableName: string;
  provider: StopwatchProvider;
  /** Through the local stack's app (`app.request`, an HS256 token it verifies). */
  post(path: string, body: object): Promise<Response>;
  /** A turn as the deployed api function receives it: an API Gateway event through the Lambda adapter. */
  turnViaApiFunction(id: string, text: string): Promise<void>;
}

function stack(dynamo: DynamoDBClient, tableName: string, token: string): Stack {
  const provider = new StopwatchProvider();
  const app = (verifier: AppDeps['verifier']) =>
    createApp({
      dynamo,
      tableName,
      s3: new S3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
      bucket: 'unused',
      providers: () => provider,
      verifier,
      limits: DEFAULT_SERVICE_LIMITS,
      cache: new SessionCache(),
    });
  const local = app(hs256Verifier(SECRET));
  const post = async (path: string, body: object): Promise<Response> => {
    const response = await local.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response;
  };
  const api = handle(app(apiGatewayVerifier()));
  const turnViaApiFunction = async (id: string, text: string): Promise<void> => {
    const result = (await api(turnEvent(id, text))) as { statusCode?: number; body?: string };
    if ((result.statusCode ?? 500) >= 300) throw new Error(`turn: ${result.statusCode} ${result.body}`);
  };
  return { dynamo, tableName, provider, post, turnViaApiFunction };
}

/** `POST /sessions/{id}/messages` as API Gateway hands it to the api function, its JWT authorizer's claims included. */
export function turnEvent(id: string, text: string): Parameters<ReturnType<typeof handle>>[0] {
  const body = JSON.stringify({ text });
  const rawPath = `/sessions/${id}/messages`;
  return {
    version: '2.0',
    routeKey: 'POST /sessions/{id}/messages',
    rawPath,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), host: 'api.example.com' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'bench',
      authentication: null,
      authorizer: { jwt: { claims: { sub: OWNER, exp: String(Math.floor(Date.now() / 1000) + 3600) }, scopes: [] } },
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method: 'POST', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'bench' },
      requestId: 'bench',
      routeKey: 'POST /sessions/{id}/messages',
      stage: '$default',
      time: '02/Dec/2026:12:00:00 +0000',
      timeEpoch: Date.now(),
    },
    body,
    isBase64Encoded: false,
  };
}

/** (a): request → provider call in a warm process, against one bare TransactWriteItems, interleaved (after a warm-up). */
async function toProvider(s: Stack, spans: Array<{ start: number; end: number }>, path: 'api' | 'local'): Promise<Array<readonly [string, string]>> {
  const { id } = (await (await s.post('/sessions', { system: 'Be brief.' })).json()) as { id: string };
  const [{ turns, bares, before, own, after }] = (await timeTurns(s, spans, [id], path)) as [TurnTimes];
  const [t, floor] = [median(turns), median(bares)];
  const label = path === 'api' ? 'the api function (API Gateway event, authorizer claims)' : 'the local stack (app.request, HS256 verified here)';
  return [
    [`request → provider call, warm: ${label}`, `${t.toFixed(2)} ms`],
    ['one bare TransactWriteItems (META update + entry put)', `${floor.toFixed(2)} ms`],
    [path === 'api' ? '(a) ratio (target ≤ 1.3×)' : '  ratio on the local stack', `${(t / floor).toFixed(2)}×`],
    [
      '  of which: request → its transaction / the transaction / → provider',
      `${median(before).toFixed(2)} ms / ${median(own).toFixed(2)} ms (${(median(own) / floor).toFixed(2)}× the bare one) / ${median(after).toFixed(2)} ms (medians of each)`,
    ],
  ];
}

interface TurnTimes {
  /** Request → provider call. */
  turns: number[];
  /** The bare transactions of the same rounds. */
  bares: number[];
  /** Request → the start of the prompt's transaction; the transaction; its end → provider call. */
  before: number[];
  own: number[];
  after: number[];
}

/**
 * Rounds of one turn on each of `ids` through `path` and one bare transaction,
 * after a warm-up of as many rounds: each session's times, the rounds' bare ones shared.
 */
async function timeTurns(s: Stack, spans: Array<{ start: number; end: number }>, ids: readonly string[], path: 'api' | 'local' = 'api'): Promise<TurnTimes[]> {
  const bares: number[] = [];
  const times = ids.map((): TurnTimes => ({ turns: [], bares, before: [], own: [], after: [] }));
  const send = (id: string) =>
    path === 'api' ? s.turnViaApiFunction(id, PROMPT) : (async () => void (await (await s.post(`/sessions/${id}/messages`, { text: PROMPT })).json()))();
  const turn = async (id: string, into: TurnTimes): Promise<void> => {
    spans.length = 0;
    const start = performance.now();
    await send(id);
    const prompt = spans[0]!;
    into.before.push(prompt.start - start);
    into.own.push(prompt.end - prompt.start);
    into.after.push(s.provider.calledAt - prompt.end);
    into.turns.push(s.provider.calledAt - start);
  };
  let n = 0;
  const bare = async (): Promise<void> => {
    const start = performance.now();
    await s.dynamo.send(bareTransaction(s.tableName, n++));
    bares.push(performance.now() - start);
  };
  // Every other round the sessions go in the other order: none is always the one right after the bare transaction.
  let rounds = 0;
  const round = async (): Promise<void> => {
    const order = [...ids.keys()];
    if (rounds++ % 2 === 1) order.reverse();
    for (const i of order) await turn(ids[i]!, times[i]!);
    await bare();
  };
  for (let i = 0; i < WARM_UP; i++) await round();
  for (const each of times) for (const samples of [each.turns, each.before, each.own, each.after]) samples.length = 0;
  bares.length = 0;
  for (let i = 0; i < SAMPLES; i++) await round();
  return times;
}

/** A session of `messages` messages (after its system prompt), written as batches of 100 with this owner's store. */
async function seededSession(s: Stack, messages: number): Promise<string> {
  const store = await DynamoStore.create({ client: s.dynamo, tableName: s.tableName, owner: OWNER });
  const f = new RecordFactory('long');
  await store.appendMessages([f.user('Be brief.')]);
  for (let written = 0; written < messages; written += 100) {
    const batch = [];
    for (let j = 0; j < Math.min(100, messages - written) / 2; j++) {
      batch.push(f.user(PROMPT, 'anthropic', 'bench'), f.assistant(SHORT_ANSWER, { provider: 'anthropic', model: 'bench' }));
    }
    await store.appendMessages(batch);
  }
  return store.sessionId();
}

/**
 * (c) and the long session's line of (a): turns through the api function on a session of
 * ~`SHORT_SESSION` messages and on one of ~`LONG_SESSION`, interleaved with each other and
 * with bare transactions (each first read by a cold turn, then warmed up). Each turn adds two
 * messages, so both are seeded short of their size by what the warm-up and half the samples
 * add: the median sample is at the size named. What grows with the session before the
 * prompt's transaction shows as a ratio over 1.
 */
async function beforeWriteBySize(s: Stack, spans: Array<{ start: number; end: number }>): Promise<Array<readonly [string, string]>> {
  const added = 2 * (WARM_UP + Math.floor(SAMPLES / 2));
  const short = await seededSession(s, SHORT_SESSION - added);
  const long = await seededSession(s, LONG_SESSION - added);
  const [shortTimes, longTimes] = (await timeTurns(s, spans, [short, long])) as [TurnTimes, TurnTimes];
  const [shortBefore, longBefore] = [median(shortTimes.before), median(longTimes.before)];
  return [
    [
      `  the api function on a session of ${LONG_SESSION} messages: request → provider / request → its transaction`,
      `${median(longTimes.turns).toFixed(2)} ms / ${longBefore.toFixed(2)} ms (${(median(longTimes.turns) / median(longTimes.bares)).toFixed(2)}× the bare one)`,
    ],
    [`request → prompt write: ${SHORT_SESSION} messages / ${LONG_SESSION} messages`, `${shortBefore.toFixed(2)} ms / ${longBefore.toFixed(2)} ms`],
    [
      `(c) request → prompt write, ${LONG_SESSION.toLocaleString('en-US')} / ${SHORT_SESSION} messages (target ≤ 1.1×)`,
      `${(longBefore / shortBefore).toFixed(2)}×`,
    ],
  ];
}

/** The floor: a conditional META-like update and one entry put, as one transaction. */
function bareTransaction(tableName: string, i: number): TransactWriteItemsCommand {
  return new TransactWriteItemsCommand({
    TransactItems: [
      {
        Update: {
          TableName: tableName,
          Key: { pk: { S: 'BENCH#bare' }, sk: { S: 'META' } },
          UpdateExpression: 'SET #n = if_not_exists(#n, :zero) + :one, #h = :h',
          ConditionExpression: 'attribute_not_exists(#l)',
          ExpressionAttributeNames: { '#n': 'entry_count', '#h': 'head', '#l': 'lease_id' },
          ExpressionAttributeValues: { ':zero': { N: '0' }, ':one': { N: '1' }, ':h': { S: `e${i}` } },
        },
      },
      { Put: { TableName: tableName, Item: { pk: { S: 'BENCH#bare' }, sk: { S: `E#${i}-${Date.now()}` }, line: { S: PROMPT } } } },
    ],
  });
}

/**
 * (b) and (d): a plain turn's write units and request bytes against the same two messages
 * written in one transaction (`DynamoStore.appendMessages`, fenced and listed as every append is).
 */
async function writeUnits(s: Stack, meter: WriteMeter, bytes: ByteMeter, prompt: string, answer: string): Promise<Array<readonly [string, string]>> {
  s.provider.answer = answer;
  const { id } = (await (await s.post('/sessions', { system: 'Be brief.' })).json()) as { id: string };
  await (await s.post(`/sessions/${id}/messages`, { text: prompt })).json();
  meter.reset();
  bytes.reset();
  await (await s.post(`/sessions/${id}/messages`, { text: prompt })).json();
  const turn = meter.units;
  const turnUnits = describeUnits(meter);
  const turnBytes = { ...bytes };

  const reference = await DynamoStore.create({ client: s.dynamo, tableName: s.tableName, owner: OWNER });
  const f = new RecordFactory('reference');
  await reference.appendMessages([f.user('Be brief.')]);
  await reference.appendMessages([f.user(prompt, 'anthropic', 'bench'), f.assistant(answer, { provider: 'anthropic', model: 'bench' })]);
  meter.reset();
  bytes.reset();
  await reference.appendMessages([f.user(prompt, 'anthropic', 'bench'), f.assistant(answer, { provider: 'anthropic', model: 'bench' })]);
  const one = meter.units;
  const text = prompt.length + answer.length;
  return [
    [`(b) ${text} bytes of text: write units, turn / one transaction (target ≤ 1.25×)`, `${turn} / ${one} WCU = ${(turn / one).toFixed(2)}×`],
    ['  turn', turnUnits],
    ['  one transaction', describeUnits(meter)],
    [
      `(d) ${text} bytes of text: request bytes, turn / one transaction (target ≤ 1.5×)`,
      `${turnBytes.bytes} B in ${turnBytes.requests} requests / ${bytes.bytes} B in ${bytes.requests} = ${(turnBytes.bytes / bytes.bytes).toFixed(2)}×`,
    ],
  ];
}

/** The META item's size as DynamoDB counts it (attribute names and values), read back after a turn. */
async function metaBytes(s: Stack): Promise<number> {
  const { id } = (await (await s.post('/sessions', { system: 'Be brief.' })).json()) as { id: string };
  await (await s.post(`/sessions/${id}/messages`, { text: PROMPT })).json();
  const { Item } = await s.dynamo.send(new GetItemCommand({ TableName: s.tableName, Key: { pk: { S: `SESSION#${id}` }, sk: { S: 'META' } } }));
  let bytes = 0;
  for (const [name, value] of Object.entries(Item ?? {})) {
    bytes += Buffer.byteLength(name);
    if (value.S !== undefined) bytes += Buffer.byteLength(value.S);
    else if (value.N !== undefined) bytes += Math.ceil(value.N.replace(/^-/, '').length / 2) + 1;
    else bytes += 1;
  }
  return bytes;
}

export async function runTurnWritesBench(): Promise<void> {
  suppressNodeVersionWarning();
  const emulator = await startDynamoDBLocal();
  const dynamo = localDynamoDBClient(emulator.endpoint);
  try {
    const tableName = 'panto-bench-writes';
    await createTable({ client: dynamo, tableName });
    const s = stack(dynamo, tableName, await signLocalToken(SECRET, OWNER));
    const meter = writeMeter(dynamo);
    const bytes = byteMeter(dynamo);
    const spans = transactionTimer(dynamo);
    for (let i = 0; i < EMULATOR_WARM_UP; i++) await dynamo.send(bareTransaction(tableName, -i));
    printTable(`service — a turn's writes (DynamoDB Local, median of ${SAMPLES})`, [
      ...(await toProvider(s, spans, 'api')),
      ...(await beforeWriteBySize(s, spans)),
      ...(await toProvider(s, spans, 'local')),
      ...(await writeUnits(s, meter, bytes, PROMPT, SHORT_ANSWER)),
      ...(await writeUnits(s, meter, bytes, PLAIN_PROMPT, PLAIN_ANSWER)),
      ...(await writeUnits(s, meter, bytes, PROMPT, LONG_ANSWER)),
      ['META after a turn (every write updates it; 1 WCU per KB, 2 in a transaction)', `${await metaBytes(s)} bytes`],
    ]);
  } finally {
    dynamo.destroy();
    await emulator.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runTurnWritesBench();
