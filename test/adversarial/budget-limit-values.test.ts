/**
 * Attacks "a limit the ledger cannot keep is refused with a clear error, and changes
 * nothing" (docs/deploy.md, "Limits"): the operator's `npm run user -- limits` and the
 * library's `setOwnerLimits` given numbers DynamoDB cannot store (1e308), that the ledger's
 * ten decimals would turn into another limit (1e-200 → 0), or that are no limit at all.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { readOwnerUsage, setOwnerLimits } from '@panto/aws';
import { beforeAll, describe, expect, it } from 'vitest';
import { localAws, type LocalAws } from '../setup/aws-fixtures.js';
import { userCommand } from '../support/user-command.js';

describe('limits out of range', () => {
  let aws: LocalAws;
  beforeAll(async () => {
    aws = await localAws('adv-limit-values');
  });

  async function gate(owner: string): Promise<unknown> {
    return (
      await aws.dynamo.send(
        new GetItemCommand({ TableName: aws.tableName, Key: { pk: { S: `OWNER#${owner}` }, sk: { S: 'USAGE#GATE' } }, ConsistentRead: true }),
      )
    ).Item;
  }

  it.each([
    ['--daily-usd', '1e308', /--daily-usd must be a dollar amount from 0 to 1000000/],
    ['--daily-usd', '1e-200', /--daily-usd must be 0 or at least \$0\.0000000001/],
    ['--monthly-usd', '-1', /--monthly-usd must be a dollar amount/],
    ['--monthly-usd', 'Infinity', /--monthly-usd must be a dollar amount/],
    ['--daily-usd', 'NaN', /--daily-usd must be a dollar amount/],
    ['--daily-usd', ' ', /--daily-usd must be a dollar amount/],
    ['--turns-per-minute', '2.5', /--turns-per-minute must be a whole number from 0 to 1000000/],
    ['--concurrent-turns', '1e7', /--concurrent-turns must be a whole number/],
  ])('`limits %s %s` exits 2 with one clear line and no stack, writing nothing', async (flag, value, message) => {
    const { code, out } = await userCommand(aws.tableName, ['limits', 'vera', `${flag}=${value}`]);
    expect(code).toBe(2);
    expect(out).toMatch(message);
    expect(out).not.toMatch(/\n\s+at /);
    expect(await gate('vera')).toBeUndefined();
  });

  it('setOwnerLimits refuses the same values with a RangeError before any request; the smallest step and the largest limit are kept exactly', async () => {
    await expect(setOwnerLimits(aws.dynamo, aws.tableName, 'wade', { dailyUsd: 1e308 })).rejects.toThrow(RangeError);
    await expect(setOwnerLimits(aws.dynamo, aws.tableName, 'wade', { monthlyUsd: 1e-200 })).rejects.toThrow(/at least \$0\.0000000001/);
    await expect(setOwnerLimits(aws.dynamo, aws.tableName, 'wade', { concurrentTurns: 0.5 })).rejects.toThrow(/whole number/);
    expect(await gate('wade')).toBeUndefined();
    expect(await userCommand(aws.tableName, ['limits', 'wade', '--daily-usd', '0.0000000001', '--monthly-usd', '1000000'])).toMatchObject({ code: 0 });
    const { overrides } = await readOwnerUsage(aws.dynamo, aws.tableName, 'wade', Date.now());
    expect(overrides.values).toEqual({ dailyUsd: 1e-10, monthlyUsd: 1_000_000 });
  });
});
