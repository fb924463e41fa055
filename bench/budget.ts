/**
 * The budget bound, measured: two API servers of the local stack (`scripts/start.ts`, each
 * its own process, as `npm start` runs it) on one DynamoDB Local, with a $1 daily budget
 * (`PANTO_BUDGET_DAILY_USD=1`), on gpt-5.4 through a fake OpenAI-wire server whose model
 * always wants to write 10,000 tokens — more than the output cap — and stops at the request's
 * `max_completion_tokens`, as OpenAI does. 40 turns at once, 20 through each server, on 40
 * sessions. Printed: the day's spend against the documented bound (the budget plus one call's
 * hold: docs/aws.md, "The usage ledger") as a ratio, the turns admitted and refused, and
 * the cap each call carried.
 *
 * Run alone: npm run bench -- budget
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OUTPUT_TOKEN_CAP } from '@panto/functions';
import { startDynamoDBLocal, suppressNodeVersionWarning } from '../scripts/local/dynamodb-local.js';
import { startS3Local } from '../scripts/local/s3-local.js';
import { type LocalServerProcess, spawnLocalServer } from '../test/local-server-process.js';
import { printTable } from './util.js';

const BUDGET_USD = 1;
const TURNS = 40;
/** gpt-5.4's catalog prices, dollars per million tokens. */
const PRICES = { input: 2.5, output: 15 };
/** What the fake model would write, uncapped: more than the cap, as a model asked an open question may. */
const WANTED_OUTPUT_TOKENS = 10_000;
const PROMPT_TOKENS = 500;
/** How long the fake model takes: long enough that all 40 turns are in flight at once. */
const ANSWER_MS = 400;

/** A fake OpenAI Chat Completions server: streams one short answer, reports usage, and honours the output cap the request carries. */
class CappedModel {
  readonly caps: Array<number | null> = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<CappedModel> {
    let model: CappedModel | undefined;
    const server = createServer((request, response) => void model?.answer(request, response));
    await new Promise<void>((resolveListening) => server.listen(0, '127.0.0.1', resolveListening));
    model = new CappedModel(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
    return model;
  }

  async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    const body = JSON.parse(text) as { max_completion_tokens?: number; max_tokens?: number; stream_options?: { include_usage?: boolean } };
    const cap = body.max_completion_tokens ?? body.max_tokens ?? null;
    this.caps.push(cap);
    const output = Math.min(WANTED_OUTPUT_TOKENS, cap ?? Number.POSITIVE_INFINITY);
    await new Promise((resolveLater) => setTimeout(resolveLater, ANSWER_MS));
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (choices: unknown[], extra: object = {}): string =>
      `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: 'gpt-5.4', choices, ...extra })}\n\n`;
    response.write(chunk([{ index: 0, delta: { role: 'assistant', content: 'A long answer, cut at the cap.' }, finish_reason: null }]));
    response.write(chunk([{ index: 0, delta: {}, finish_reason: output < WANTED_OUTPUT_TOKENS ? 'length' : 'stop' }]));
    if (body.stream_options?.include_usage === true) {
      response.write(chunk([], { usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: output, total_tokens: PROMPT_TOKENS + output } }));
    }
    response.end('data: [DONE]\n\n');
  }

  close(): Promise<void> {
    return new Promise((resolveClose) => this.server.close(() => resolveClose()));
  }
}

async function call(server: { url: string; token: string }, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

/** The hold of one call of a fresh session with `prompt`: its context (the prompt, 4 characters a token) and 1,024 tokens of slack at the input price, the cap at the output price. */
function holdOf(prompt: string): number {
  const context = Math.ceil(JSON.stringify({ role: 'user', content: prompt }).length / 4);
  return ((context + 1024) * PRICES.input + OUTPUT_TOKEN_CAP * PRICES.output) / 1e6;
}

export async function runBudgetBench(): Promise<void> {
  suppressNodeVersionWarning();
  const dataDir = await mkdtemp(join(tmpdir(), 'panto-bench-budget-'));
  const [dynamo, s3, model] = await Promise.all([startDynamoDBLocal(), startS3Local({ directory: join(dataDir, 's3') }), CappedModel.start()]);
  const servers: LocalServerProcess[] = [];
  try {
    // Over this process's environment; the limits this bench does not set are left out (`undefined`).
    const env: NodeJS.ProcessEnv = {
      PANTO_DATA_DIR: dataDir,
      PANTO_DYNAMODB_ENDPOINT: dynamo.endpoint,
      PANTO_S3_ENDPOINT: s3.endpoint,
      PANTO_PROVIDER: 'openai',
      PANTO_MODEL: 'gpt-5.4',
      OPENAI_API_KEY: 'bench-key',
      OPENAI_BASE_URL: model.url,
      PANTO_BUDGET_DAILY_USD: String(BUDGET_USD),
      PANTO_BUDGET_MONTHLY_USD: undefined,
      PANTO_TURNS_PER_MINUTE: undefined,
      PANTO_CONCURRENT_TURNS: undefined,
      PANTO_MODEL_PRICES: undefined,
    };
    // One after the other: the first creates the table and the token secret the second then shares.
    for (let i = 0; i < 2; i++) servers.push(await spawnLocalServer(env));
    const sessions = await Promise.all(
      Array.from({ length: TURNS }, async (_, n) => ({
        server: servers[n % 2]!,
        id: ((await call(servers[n % 2]!, 'POST', '/sessions', {})).body as { id: string }).id,
      })),
    );
    const prompt = 'Tell me everything about budgets.';
    const statuses = await Promise.all(
      sessions.map(async ({ server, id }) => (await call(server, 'POST', `/sessions/${id}/messages`, { text: prompt })).status),
    );
    const usage = (await call(servers[0]!, 'GET', '/usage')).body as { today: { usd: number; turns: number; reserved_usd: number } };
    const bound = BUDGET_USD + holdOf(prompt);
    const callCost = (PROMPT_TOKENS * PRICES.input + Math.min(WANTED_OUTPUT_TOKENS, OUTPUT_TOKEN_CAP) * PRICES.output) / 1e6;
    const admitted = statuses.filter((status) => status === 200).length;
    const refused = statuses.filter((status) => status === 429).length;
    const caps = [...new Set(model.caps.map((cap) => (cap === null ? 'none' : String(cap))))].join(', ');
    printTable(
      `budget: ${TURNS} turns at once on a $${BUDGET_USD} daily budget, through two local-stack servers on one DynamoDB Local (gpt-5.4, OpenAI wire)`,
      [
        ['turns admitted / refused (429) / other', `${admitted} / ${refused} / ${TURNS - admitted - refused}`],
        ['output cap each call carried', `${caps} (the fake model wants ${WANTED_OUTPUT_TOKENS} tokens, stops at the cap)`],
        ['one call: its hold, its cost', `$${holdOf(prompt).toFixed(4)}, $${callCost.toFixed(4)}`],
        ['documented bound (budget + one hold)', `$${bound.toFixed(4)}`],
        ['spent today (GET /usage)', `$${usage.today.usd.toFixed(4)} in ${usage.today.turns} turns, $${usage.today.reserved_usd.toFixed(4)} still reserved`],
        ['spend / bound', `${(usage.today.usd / bound).toFixed(3)}× (at most 1 is the guarantee)`],
        ['spend / budget', `${(usage.today.usd / BUDGET_USD).toFixed(3)}×`],
      ],
    );
  } finally {
    for (const server of servers) await server.stop();
    await Promise.all([dynamo.stop(), s3.stop(), model.close()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runBudgetBench();
