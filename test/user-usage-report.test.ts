/**
 * `npm run user -- usage <user>` (issue 37, item 13): an owner the ledger holds nothing of is
 * said to have no record instead of a report of zeros; a user a stage's pool does not have is
 * one line and exit 1; counts are singular where they are one. On the run's DynamoDB Local
 * (the local stack's way, found by PANTO_DATA_DIR) and, for the pool, a mocked Cognito.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CognitoIdentityProviderClient, ListUsersCommand } from '@aws-sdk/client-cognito-identity-provider';
import { NO_USAGE, periodsOf, sendExtras, totalsWrite } from '@panto/aws/service';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runUserCommand } from '../scripts/deployed/commands.js';
import type { CommandIO } from '../scripts/deployed/process-io.js';
import { writeLocalStack } from '../scripts/local/stack-file.js';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';

let aws: LocalAws;
let root: string;
const cognitoClient = new CognitoIdentityProviderClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
const cognito = mockClient(cognitoClient);

beforeAll(async () => {
  aws = await localAws('user-usage');
  root = await mkdtemp(join(tmpdir(), 'panto-usage-report-'));
  await mkdir(join(root, 'data'));
  await writeLocalStack(join(root, 'data'), { dynamodb: inject('dynamoEndpoint'), tableName: aws.tableName });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `npm run user -- …` with the local stack of `root/data` (and `.sst/outputs.json` of `root` for --stage). */
async function user(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CommandIO = {
    root,
    env: { PANTO_DATA_DIR: join(root, 'data') },
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    readPassword: async () => '',
    cognito: () => cognitoClient,
  };
  return { code: await runUserCommand(argv, io), out, err };
}

describe('npm run user -- usage <user>', () => {
  it('says the ledger has no record of an owner it holds nothing of, instead of printing zeros', async () => {
    const typo = await user(['usage', 'nobdoy']);
    expect(typo.code).toBe(0);
    expect(typo.out).toBe(
      `nobdoy: the usage ledger of the local stack (${join(root, 'data')}) has no record of this owner — no usage today or this month, no turn running, no limits of its own (a mistyped name? npm run user -- usage --all lists the owners it has)\n`,
    );
    expect(typo.out).not.toContain('$0.0000');
  });

  it('reports an owner with one turn as "1 turn", and with two as "2 turns"', async () => {
    const periods = periodsOf(Date.now());
    const turn = { ...NO_USAGE, usd: 0.01, chargedUsd: 0.01, inputTokens: 100, outputTokens: 10, turns: 1 };
    const target = { tableName: aws.tableName, owner: 'ada', periods };
    // A settled turn's writes: its usage added to the day's and the month's totals.
    const settle = () =>
      sendExtras(aws.dynamo, {
        writes: (['day', 'month'] as const).map((period) => totalsWrite(target, { period, delta: turn, hold: null, limit: null })),
        refused: async () => new Error('unconditional ledger writes were refused'),
      });
    await settle();
    const one = await user(['usage', 'ada']);
    expect(one.out).toMatch(/^ada\n {2}today {3}\$0\.0100 {2}1 turn {2}100 in/);
    expect(one.out).not.toContain('1 turns');
    await settle();
    expect((await user(['usage', 'ada'])).out).toMatch(/today {3}\$0\.0200 {2}2 turns/);
    expect((await user(['usage', '--all'])).out).toMatch(/^1 owner in the usage ledger of the local stack/);
  });

  it('on a stage, a user its pool does not have is one line naming the stage, and exit 1', async () => {
    await mkdir(join(root, '.sst'), { recursive: true });
    await writeFile(
      join(root, '.sst', 'outputs.json'),
      JSON.stringify({ stage: 'prod', region: 'eu-west-1', table: 'panto-prod', userPool: 'eu-west-1_AbC', userPoolClient: 'c' }),
    );
    cognito.on(ListUsersCommand).resolves({ Users: [{ Username: 'alice', Attributes: [{ Name: 'sub', Value: 'sub-alice' }] }] });
    const missing = await user(['usage', 'alcie', '--stage', 'prod']);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe('no user alcie in the user pool of stage prod (npm run user -- list --stage prod lists them)\n');
    expect(missing.out).toBe('');
  });
});
