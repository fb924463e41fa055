/**
 * Attacks "a change of an owner's limits applies from their next turn, and refuses nothing
 * the new limits allow" (docs/aws.md, "Overrides"): right after each `limits` change, a burst
 * of turns at once from an owner with no concurrency limit. Every turn's first gate check
 * names the old version and is refused; the first refusal teaches the process the new
 * version — the others must still be retried with it, not taken for a full concurrency limit
 * (which answered 429 "as many turns running as allowed").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../api-harness.js';
import { userCommand } from '../support/user-command.js';

const MODEL = { provider: 'anthropic', model: 'claude-sonnet-5-5' };

describe('a burst of turns right after a limits change', () => {
  let app: ApiHarness;
  beforeAll(async () => {
    app = await startApi('adv-limit-burst', { usageLimits: { dailyUsd: 100, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null } });
  });
  afterAll(async () => app?.close());

  it('runs every turn of every burst: no 429 for an owner whose limits allow them all', { timeout: 60_000 }, async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, () => app.newSession('xena', MODEL)));
    for (let burst = 0; burst < 4; burst++) {
      expect(await userCommand(app.aws.tableName, ['limits', 'xena', '--daily-usd', String(50 + burst)])).toMatchObject({ code: 0 });
      for (const _ of sessions) app.fake.enqueue({ text: 'fine', usage: { input: 100, output: 10 } });
      const statuses = await Promise.all(
        sessions.map(async (session) => {
          const response = await app.call('xena', 'POST', `/sessions/${session.id}/messages`, { text: `burst ${burst}` });
          return `${response.status} ${response.status === 200 ? '' : await response.text()}`.trim();
        }),
      );
      expect(statuses, `burst ${burst}`).toEqual(sessions.map(() => '200'));
    }
  });
});
