/**
 * The usage ledger and the limits on DynamoDB Local, through the HTTP API: the totals equal
 * the sessions' own usage (failed turns included) at no extra request per turn; a daily
 * budget holds under 30 parallel turns to within one turn's cost; turns per minute and turns
 * at once are refused with 429 and nothing stored; an override in the table applies to the
 * next turn; a budget spent mid-turn stops a tool turn before its next call.
 */
import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { ManualClock } from '@panto/core/testing';
import { usageCost } from '@panto/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { json, startApi, type ApiHarness } from './api-harness.js';
import { DynamoProxy } from './dynamo-proxy.js';
import { userCommand } from './support/user-command.js';

const MODEL = { provider: 'anthropic', model: 'claude-sonnet-5-5' };
const USAGE = { input: 1000, output: 100 };
/** What one turn with {@link USAGE} costs at the model's list prices. */
const TURN_USD = usageCost('anthropic', 'claude-sonnet-5-5', { input_tokens: 1000, output_tokens: 100, cache_read_tokens: 0, cache_write_tokens: 0 })!;

interface UsageReport {
  today: { usd: number; input_tokens: number; output_tokens: number; turns: number; usd_unknown_turns: number };
  month: { usd: number; turns: number };
  limits: Record<string, number | null>;
  resets: { day: string; month: string };
}

type Totals = { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number };

async function sessionOf(app: ApiHarness, owner: string, id: string): Promise<{ usage: Totals; prompts: number }> {
  const body = await json<{ usage: Totals; messages: { role: string }[] }>(await app.call(owner, 'GET', `/sessions/${id}`), 200);
  return { usage: body.usage, prompts: body.messages.filter((message) => message.role === 'user').length };
}

async function usageOf(app: ApiHarness, owner: string): Promise<UsageReport> {
  return json<UsageReport>(await app.call(owner, 'GET', '/usage'), 200);
}

describe('the usage ledger', () => {
  let proxy: DynamoProxy;
  let app: ApiHarness;
  beforeAll(async () => {
    proxy = await DynamoProxy.start(inject('dynamoEndpoint'));
    app = await startApi('usage-ledger', { dynamo: localDynamoDBClient(proxy.endpoint) });
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
  });

  it('after 50 turns across 5 sessions (some failed midway) holds the sum of their usage, at no extra request per turn', { timeout: 120_000 }, async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await app.newSession('alice', MODEL)).id);
    for (let n = 0; n < 50; n++) {
      const fails = n % 7 === 3;
      app.fake.enqueue(fails ? { text: 'one two three four five', errorEvent: { afterDeltas: 2 }, usage: USAGE } : { text: `answer ${n}`, usage: USAGE });
      proxy.resetCounts();
      const response = await app.call('alice', 'POST', `/sessions/${ids[n % 5]}/messages`, { text: `question ${n}` });
      expect([200, 502, 503], await response.clone().text()).toContain(response.status);
      await response.text();
      // The prompt (which takes the lease) and the answer (which gives it up) — the ledger rides on
      // both appends; a session's first turn in this process reads its log once.
      const reads = n < 5 ? ['Query'] : [];
      expect(proxy.requests, `turn ${n}`).toEqual([...reads, 'TransactWriteItems', 'TransactWriteItems']);
    }
    const failed = app.records.filter((record) => record.method === 'POST' && record.route === '/sessions/{id}/messages' && record.status !== 200);
    expect(failed.length, 'turns that failed midway').toBe(7);
    const sum: Totals = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
    for (const id of ids) {
      const { usage } = await sessionOf(app, 'alice', id);
      for (const key of Object.keys(sum) as (keyof Totals)[]) sum[key] += usage[key];
    }
    proxy.resetCounts();
    const report = await usageOf(app, 'alice');
    expect(proxy.requests, 'GET /usage reads the day, the month and the gate at once').toEqual(['BatchGetItem']);
    expect(report.today).toMatchObject({ ...sum, turns: 50, usd_unknown_turns: 0 });
    const expected = usageCost('anthropic', 'claude-sonnet-5-5', { ...sum })!;
    expect(report.today.usd).toBeCloseTo(expected, 9);
    expect(report.month).toMatchObject({ turns: 50 });
    expect(report.limits).toEqual({ daily_usd: null, monthly_usd: null, turns_per_minute: null, concurrent_turns: null });
    expect(new Date(report.resets.day).getUTCHours()).toBe(0);
    expect(Date.parse(report.resets.day)).toBeGreaterThan(Date.now());
    // A compaction's model call is spend too: the ledger still equals the sessions' usage after one.
    app.fake.enqueue({ text: 'The summary.', usage: { input: 700, output: 60 } });
    expect((await app.call('alice', 'POST', `/sessions/${ids[0]}/compact`, {})).status).toBe(200);
    const after: Totals = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
    for (const id of ids) {
      const { usage } = await sessionOf(app, 'alice', id);
      for (const key of Object.keys(after) as (keyof Totals)[]) after[key] += usage[key];
    }
    const recounted = (await usageOf(app, 'alice')).today;
    expect(recounted).toMatchObject({ ...after, turns: 50 });
    expect(recounted.input_tokens - report.today.input_tokens).toBe(700);
    // Another owner's ledger is their own.
    expect((await usageOf(app, 'nobody')).today.turns).toBe(0);
  });
});

/** A turn that writes as much as a reservation allows for (8,192 tokens): its cost is close to what it reserved. */
const LONG = { input: 1000, output: 8192 };
const LONG_USD = usageCost('anthropic', 'claude-sonnet-5-5', { input_tokens: 1000, output_tokens: 8192, cache_read_tokens: 0, cache_write_tokens: 0 })!;

describe('a daily budget under parallel turns', () => {
  let app: ApiHarness;
  beforeAll(async () => {
    app = await startApi('usage-budget', { usageLimits: { dailyUsd: LONG_USD * 1.1, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null } });
  });
  afterAll(async () => app?.close());

  it('ends at most one turn over the budget; the refused are 429 budget_exceeded with Retry-After and store nothing; others are unaffected', {
    timeout: 60_000,
  }, async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await app.newSession('bob', MODEL)).id);
    for (let i = 0; i < 40; i++) app.fake.enqueue({ text: 'ok', usage: LONG, delayMs: 50 });
    const answers = await Promise.all(
      Array.from({ length: 30 }, async (_, n) => {
        const response = await app.call('bob', 'POST', `/sessions/${ids[n % 10]}/messages`, { text: `parallel ${n}` });
        return {
          session: ids[n % 10]!,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: (await response.json()) as { error?: { code: string } },
        };
      }),
    );
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.body.error?.code).toBe('budget_exceeded');
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    // Only session_busy besides: two turns at once on one session.
    for (const answer of answers) expect([200, 409, 429]).toContain(answer.status);
    for (const id of ids) {
      const ran = answers.filter((answer) => answer.session === id && answer.status === 200).length;
      expect((await sessionOf(app, 'bob', id)).prompts, `session ${id}: only the prompts of turns that ran are stored`).toBe(ran);
    }
    const report = await usageOf(app, 'bob');
    expect(report.today.turns).toBe(answers.filter((answer) => answer.status === 200).length);
    // Two pass, whichever order the turns race in: the first below the budget with nothing spent, the
    // second below it with the first's reservation counted; then the spend is over, by less than a turn.
    expect(report.today.turns).toBe(2);
    expect(report.today.usd).toBeGreaterThan(LONG_USD * 1.1);
    expect(report.today.usd).toBeLessThanOrEqual(LONG_USD * 1.1 + LONG_USD + 1e-9);
    expect(report.limits.daily_usd).toBeCloseTo(LONG_USD * 1.1, 12);
    const carol = await app.newSession('carol', MODEL);
    expect((await app.call('carol', 'POST', `/sessions/${carol.id}/messages`, { text: 'mine' })).status).toBe(200);
  });
});

describe('a budget spent mid-turn', () => {
  let app: ApiHarness;
  beforeAll(async () => {
    app = await startApi('usage-budget-tools', { usageLimits: { dailyUsd: TURN_USD * 1.1, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null } });
  });
  afterAll(async () => app?.close());

  it('stops a tool turn before its next provider call, keeping what it committed', async () => {
    const { id } = await app.newSession('dave', MODEL);
    const before = app.fake.requests.length;
    app.fake.enqueue({ toolCalls: [{ name: 'current_time', input: {} }], usage: { input: 1000, output: 300 } }, { text: 'never asked for' });
    const body = await json<{ incomplete: boolean; incomplete_reason?: string; messages: { role: string }[] }>(
      await app.call('dave', 'POST', `/sessions/${id}/messages`, { text: 'what time is it?' }),
      200,
    );
    expect(body, JSON.stringify(body)).toMatchObject({ incomplete: true, incomplete_reason: 'budget' });
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool_result']);
    expect(app.fake.requests.length - before).toBe(1);
    const dave = (await usageOf(app, 'dave')).today;
    expect(dave.turns).toBe(1);
    expect(dave.usd).toBeCloseTo(
      usageCost('anthropic', 'claude-sonnet-5-5', { input_tokens: 1000, output_tokens: 300, cache_read_tokens: 0, cache_write_tokens: 0 })!,
      9,
    );
  });
});

describe('turns per minute and turns at once', () => {
  let rate: ApiHarness;
  let concurrent: ApiHarness;
  const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
  beforeAll(async () => {
    rate = await startApi('usage-rate', { clock, usageLimits: { dailyUsd: null, monthlyUsd: null, turnsPerMinute: 3, concurrentTurns: null } });
    concurrent = await startApi('usage-concurrent', { usageLimits: { dailyUsd: null, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: 2 } });
  });
  afterAll(async () => {
    await rate?.close();
    await concurrent?.close();
  });

  const user = (argv: string[]): Promise<{ code: number; out: string }> => userCommand(rate.aws.tableName, argv);

  it('refuses the 4th turn within the minute with 429 rate_limited, storing nothing; an override in the table applies to the next turn', async () => {
    const { id } = await rate.newSession('erin');
    for (let n = 0; n < 10; n++) rate.fake.enqueue({ text: `answer ${n}` });
    for (let n = 0; n < 3; n++) expect((await rate.call('erin', 'POST', `/sessions/${id}/messages`, { text: `turn ${n}` })).status).toBe(200);
    const fourth = await rate.call('erin', 'POST', `/sessions/${id}/messages`, { text: 'one too many' });
    expect(fourth.status).toBe(429);
    expect(((await fourth.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await sessionOf(rate, 'erin', id)).prompts).toBe(3);
    // The operator raises erin's limit on this stack; the process learns it from its next turn's gate check.
    expect(await user(['limits', 'erin', '--turns-per-minute', '10'])).toMatchObject({ code: 0 });
    expect((await rate.call('erin', 'POST', `/sessions/${id}/messages`, { text: 'allowed now' })).status).toBe(200);
    expect((await usageOf(rate, 'erin')).limits.turns_per_minute).toBe(10);
    const shown = await user(['usage', 'erin']);
    expect(shown.out).toMatch(/today .* 4 turns/);
    expect(shown.out).toContain('turns/minute 10 ·');
    expect((await user(['usage', '--all'])).out).toContain('erin\n');
    expect(await user(['limits', 'erin', '--turns-per-minute', '4'])).toMatchObject({ code: 0 });
    expect((await rate.call('erin', 'POST', `/sessions/${id}/messages`, { text: 'over again' })).status).toBe(429);
    // A streamed turn is refused at its prompt's write, which comes before its stream starts: a real 429.
    const streamed = await rate.call('erin', 'POST', `/sessions/${id}/messages/stream`, { text: 'streamed, over' });
    expect(streamed.status).toBe(429);
    expect(Number(streamed.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect((await sessionOf(rate, 'erin', id)).prompts).toBe(4);
  });

  it('refuses a turn over the monthly budget with 429 budget_exceeded (Retry-After: until the month resets); --monthly-usd none lifts it', async () => {
    const { id } = await rate.newSession('hugo', MODEL);
    expect(await user(['limits', 'hugo', '--monthly-usd', '0'])).toMatchObject({ code: 0 });
    const refused = await rate.call('hugo', 'POST', `/sessions/${id}/messages`, { text: 'this month?' });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'budget_exceeded',
      message: expect.stringContaining('monthly'),
    });
    const resets = Date.parse((await usageOf(rate, 'hugo')).resets.month);
    expect(Number(refused.headers.get('retry-after'))).toBe(Math.ceil((resets - clock.now()) / 1000));
    expect(await user(['limits', 'hugo', '--monthly-usd', 'none'])).toMatchObject({ code: 0 });
    rate.fake.enqueue({ text: 'unlimited' });
    expect((await rate.call('hugo', 'POST', `/sessions/${id}/messages`, { text: 'and now?' })).status).toBe(200);
    expect((await usageOf(rate, 'hugo')).limits.monthly_usd).toBeNull();
  });

  it('runs 2 of 5 slow turns at once and refuses 3 with 429 rate_limited; a slot is free again after', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await concurrent.newSession('frank')).id);
    for (let i = 0; i < 5; i++) concurrent.fake.enqueue({ text: 'slow', delayMs: 1500 });
    const statuses = await Promise.all(ids.map(async (id) => (await concurrent.call('frank', 'POST', `/sessions/${id}/messages`, { text: 'slowly' })).status));
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 429)).toHaveLength(3);
    concurrent.fake.enqueue({ text: 'again' });
    expect((await concurrent.call('frank', 'POST', `/sessions/${ids[0]}/messages`, { text: 'again' })).status).toBe(200);
  });

  it('does not count the slots of turns that crashed once they expire: the refused turn sweeps them and runs', async () => {
    const { id } = await concurrent.newSession('gina');
    // Two turns that took their slots and died (their process crashed) an hour ago.
    const dead = [`${Date.now() - 3_600_000}#crashed-1`, `${Date.now() - 3_600_000}#crashed-2`];
    await concurrent.aws.dynamo.send(
      new UpdateItemCommand({
        TableName: concurrent.aws.tableName,
        Key: { pk: { S: 'OWNER#gina' }, sk: { S: 'USAGE#GATE' } },
        UpdateExpression: 'ADD #slots :dead',
        ExpressionAttributeNames: { '#slots': 'slots' },
        ExpressionAttributeValues: { ':dead': { SS: dead } },
      }),
    );
    concurrent.fake.enqueue({ text: 'alive' });
    expect((await concurrent.call('gina', 'POST', `/sessions/${id}/messages`, { text: 'is there room?' })).status).toBe(200);
    const gate = await concurrent.aws.dynamo.send(
      new GetItemCommand({ TableName: concurrent.aws.tableName, Key: { pk: { S: 'OWNER#gina' }, sk: { S: 'USAGE#GATE' } }, ConsistentRead: true }),
    );
    expect(gate.Item?.slots?.SS ?? []).toEqual([]);
  });
});
