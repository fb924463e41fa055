/**
 * Attacks "an owner sees and changes only their own sessions, spend and limits" (docs/api.md,
 * "Sessions are their owner's"; docs/aws.md, "The usage ledger"), the way another signed-in
 * user would: every route on a session that is not theirs, a stop of someone else's running
 * turn, an Idempotency-Key someone else used, a `sub` spelled like a key of someone else's
 * ledger items, and spend meant to land on someone else's budget.
 */
import { waitUntil } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, snapshot, startApi, type ApiHarness } from '../api-harness.js';
import { usageReport } from '../support/ledger-items.js';
import { userCommand } from '../support/user-command.js';

type ErrorJson = { error: { code: string; message: string } };
const MODEL = { provider: 'anthropic', model: 'claude-sonnet-5-5' };

/** Every route that names a session, with a body that would be valid on one's own. */
const SESSION_ROUTES: ReadonlyArray<readonly [string, string, unknown?]> = [
  ['GET', ''],
  ['PATCH', '', { title: 'mine now' }],
  ['GET', '/entries'],
  ['GET', '/tree'],
  ['PUT', '/leaf', { entry_id: '0190a1b2-0000-7000-8000-000000000001' }],
  ['POST', '/fork', { entry_id: '0190a1b2-0000-7000-8000-000000000001' }],
  ['GET', '/exports'],
  ['POST', '/stop'],
  ['GET', '/events'],
  ['POST', '/messages', { text: 'mine now' }],
  ['POST', '/messages/stream', { text: 'mine now' }],
  ['POST', '/compact', {}],
  ['POST', '/export', {}],
  ['DELETE', ''],
];

describe("another owner's sessions, spend and limits", () => {
  let app: ApiHarness;
  beforeAll(async () => {
    app = await startApi('adv-owner', { usageLimits: { dailyUsd: 0.01, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null } });
  });
  afterAll(async () => app?.close());

  it("answers every session route of another owner's session as for an unknown id, reads nothing out and changes nothing", async () => {
    const { id } = await app.newSession('amy', MODEL);
    app.fake.enqueue({ text: 'amy’s private answer', usage: { input: 10, output: 10 } });
    expect((await app.call('amy', 'POST', `/sessions/${id}/messages`, { text: 'amy’s private prompt' })).status).toBe(200);
    const before = await snapshot(app.aws);
    const calls = app.fake.requests.length;
    for (const [method, path, body] of SESSION_ROUTES) {
      const unknown = await app.call('ben', method, `/sessions/0190a1b2-0000-7000-8000-000000000000${path}`, body);
      const foreign = await app.call('ben', method, `/sessions/${id}${path}`, body);
      expect(foreign.status, `${method} ${path}`).toBe(unknown.status);
      expect(foreign.status, `${method} ${path}`).toBe(404);
      expect(await foreign.text(), `${method} ${path}`).toBe(await unknown.text());
    }
    const listed = await json<{ sessions: { id: string }[] }>(await app.call('ben', 'GET', '/sessions'), 200);
    expect(listed.sessions.map((session) => session.id)).not.toContain(id);
    expect(await snapshot(app.aws)).toEqual(before);
    expect(app.fake.requests.length).toBe(calls);
  });

  it("cannot stop another owner's running turn", async () => {
    const { id } = await app.newSession('amy', MODEL);
    app.fake.enqueue({ text: 'one two three four', usage: { input: 10, output: 10 }, pauseAfterDeltas: 1 });
    const asked = app.fake.requests.length;
    const running = app.call('amy', 'POST', `/sessions/${id}/messages`, { text: 'keep going' });
    await waitUntil(() => app.fake.requests.length > asked, { message: 'the provider call', timeoutMs: 10_000 });
    expect((await json<ErrorJson>(await app.call('ben', 'POST', `/sessions/${id}/stop`), 404)).error.code).toBe('session_not_found');
    app.fake.resume();
    const answer = await json<{ stop_reason: string; incomplete: boolean }>(await running, 200);
    expect(answer).toMatchObject({ stop_reason: 'end_turn', incomplete: false });
  });

  it("does not replay another owner's answer for the same Idempotency-Key", async () => {
    const key = 'shared-key-0001';
    const amy = await json<{ id: string }>(await app.call('amy', 'POST', '/sessions', { system: 'amy’s' }, { 'idempotency-key': key }), 201);
    const ben = await json<{ id: string }>(await app.call('ben', 'POST', '/sessions', { system: 'amy’s' }, { 'idempotency-key': key }), 201);
    expect(ben.id).not.toBe(amy.id);
    expect((await app.call('ben', 'GET', `/sessions/${amy.id}`)).status).toBe(404);
  });

  it("keeps each owner's spend and limits their own: another's spend, override or look-alike sub never reaches them", async () => {
    // cleo spends her whole $0.01 budget; an owner whose sub looks like one of her ledger keys spends too.
    for (const owner of ['cleo', 'cleo#USAGE#GATE', 'OWNER#cleo']) {
      const { id } = await app.newSession(owner, MODEL);
      for (let n = 0; n < 3; n++) {
        app.fake.enqueue({ text: 'spent', usage: { input: 1000, output: 1000 } });
        await app.call(owner, 'POST', `/sessions/${id}/messages`, { text: `spend ${n}` });
      }
    }
    const cleo = (await usageReport(app, 'cleo')).today;
    expect(cleo.turns).toBeGreaterThan(0);
    // The look-alikes' turns are theirs alone.
    for (const owner of ['cleo#USAGE#GATE', 'OWNER#cleo']) expect((await usageReport(app, owner)).today.turns).toBe(cleo.turns);
    const { id } = await app.newSession('dana', MODEL);
    app.fake.enqueue({ text: 'my budget is mine' });
    expect((await app.call('dana', 'POST', `/sessions/${id}/messages`, { text: 'hi' })).status).toBe(200);
    expect((await usageReport(app, 'dana')).today.turns).toBe(1);
    // An operator's override for cleo is hers: dana's limit stays the default.
    expect(await userCommand(app.aws.tableName, ['limits', 'cleo', '--daily-usd', '0'])).toMatchObject({ code: 0 });
    expect((await usageReport(app, 'dana')).limits.daily_usd).toBe(0.01);
    expect((await usageReport(app, 'cleo')).limits.daily_usd).toBe(0);
  });
});
