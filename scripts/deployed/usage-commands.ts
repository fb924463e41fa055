/**
 * `npm run user -- limits <user> …` and `npm run user -- usage <user>|--all`: an owner's
 * limit overrides and totals in the usage ledger, for the operator. On the local stack
 * (`npm start`, found by the same `PANTO_DATA_DIR`) `<user>` is the token's `sub`; with
 * `--stage` the stage's table (`.sst/outputs.json`) and `<user>` a user of its pool (or a sub).
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import {
  limitProblem,
  listLedgerOwners,
  readOwnerUsage,
  setOwnerLimits,
  type LimitChange,
  type OwnerLimits,
  type OwnerUsage,
  type UsageTotals,
} from '@panto/aws';
import { usageLimits } from '@panto/functions';
import { localDynamoDBClient } from '../local/dynamodb-local.js';
import { readLocalStack } from '../local/stack-file.js';
import type { CommandIO } from './process-io.js';
import { stagePool } from './stage.js';
import { listUsers } from './users.js';

export const USAGE_COMMANDS_USAGE = `  limits <user> [--daily-usd N] [--monthly-usd N] [--turns-per-minute N] [--concurrent-turns N]
                                                           set a user's limits (N, none, or default: the server's)
  usage <user> | usage --all                               a user's spend and tokens today and this month, and limits
  (on the local stack, <user> is the token's sub and the stack is found by PANTO_DATA_DIR)
`;

const FLAGS = {
  'daily-usd': 'dailyUsd',
  'monthly-usd': 'monthlyUsd',
  'turns-per-minute': 'turnsPerMinute',
  'concurrent-turns': 'concurrentTurns',
} as const;

interface Table {
  client: DynamoDBClient;
  tableName: string;
  where: string;
  /** The owner a `<user>` argument names. */
  owner: (user: string) => Promise<string>;
}

/** `limits` and `usage`; resolves with the exit code. */
export async function runUsageCommand(argv: readonly string[], io: CommandIO): Promise<number> {
  let parsed: ReturnType<typeof parseUsageArgs>;
  try {
    parsed = parseUsageArgs(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${USAGE_COMMANDS_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, user, ...rest] = positionals;
  const all = values.all === true;
  if (rest.length > 0 || (command === 'limits' ? user === undefined || all : all === (user !== undefined))) {
    io.stderr(USAGE_COMMANDS_USAGE);
    return 2;
  }
  let change: LimitChange;
  try {
    change = limitChange(values);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n`);
    return 2;
  }
  const table = await findTable(values, io);
  if (typeof table === 'string') {
    io.stderr(`${table}\n`);
    return 1;
  }
  const now = Date.now();
  let owner: string | undefined;
  try {
    owner = user === undefined ? undefined : await table.owner(user);
  } catch (error) {
    // An owner that cannot be named (no such user in the stage's pool) is the operator's to fix: one line.
    if (!(error instanceof UnknownUserError)) throw error;
    io.stderr(`${error.message}\n`);
    return 1;
  }
  if (command === 'limits') {
    if (Object.keys(change).length > 0) await setOwnerLimits(table.client, table.tableName, owner!, change);
    io.stdout(describe(await readOwnerUsage(table.client, table.tableName, owner!, now), io));
    return 0;
  }
  if (owner !== undefined) {
    io.stdout(describe(await readOwnerUsage(table.client, table.tableName, owner, now), io, table.where));
    return 0;
  }
  const owners = await listLedgerOwners(table.client, table.tableName);
  io.stdout(`${plural(owners.length, 'owner')} in the usage ledger of ${table.where}\n`);
  for (const each of owners) io.stdout(describe(await readOwnerUsage(table.client, table.tableName, each, now), io));
  return 0;
}

/** A `<user>` that names nobody: not a user of the stage's pool. */
class UnknownUserError extends Error {
  override readonly name = 'UnknownUserError';
}

function parseUsageArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      all: { type: 'boolean' },
      stage: { type: 'string' },
      region: { type: 'string' },
      'user-pool-id': { type: 'string' },
      'client-id': { type: 'string' },
      ...Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: 'string' as const }])),
    },
    allowPositionals: true,
  });
}

/** The overrides the flags ask for: a number (see `limitProblem`), `none`, or `default`. */
function limitChange(values: { [flag: string]: string | boolean | undefined }): LimitChange {
  const change: LimitChange = {};
  for (const [flag, name] of Object.entries(FLAGS)) {
    const text = values[flag];
    if (typeof text !== 'string') continue;
    if (text === 'none') change[name] = null;
    else if (text === 'default') change[name] = 'default';
    else {
      // The ledger's own rule (limitProblem): a value DynamoDB or the ledger cannot keep is refused here, before any request.
      const value = text.trim() === '' ? Number.NaN : Number(text);
      const problem = limitProblem(name, value);
      if (problem !== null) throw new Error(`--${flag} must be ${problem}, none, or default; not ${JSON.stringify(text)}`);
      change[name] = value;
    }
  }
  return change;
}

/** The stage's table with `--stage` (or the pool flags); else the local stack on `PANTO_DATA_DIR`. A string says why neither. */
async function findTable(values: { stage?: string | undefined; region?: string | undefined }, io: CommandIO): Promise<Table | string> {
  if (values.stage === undefined) {
    const dataDir = resolve(io.root, io.env.PANTO_DATA_DIR ?? '.panto-local');
    const stack = await readLocalStack(dataDir);
    if (stack === null) return `no local stack on ${dataDir} (run npm start first, with the same PANTO_DATA_DIR), or pass --stage <stage>`;
    return { client: localDynamoDBClient(stack.dynamodb), tableName: stack.tableName, where: `the local stack (${dataDir})`, owner: async (user) => user };
  }
  // No outputs file: nothing deployed from here, which the next line says, naming the stage.
  const outputs = JSON.parse(await readFile(join(io.root, '.sst', 'outputs.json'), 'utf8').catch(() => '{}')) as Record<string, unknown>;
  if (outputs.stage !== values.stage || typeof outputs.table !== 'string') {
    return `.sst/outputs.json is not for stage ${values.stage} (or has no table): run npx sst deploy --stage ${values.stage}`;
  }
  const region = values.region ?? (typeof outputs.region === 'string' ? outputs.region : undefined);
  const client = new DynamoDBClient(region === undefined ? {} : { region });
  return { client, tableName: outputs.table, where: `stage ${values.stage} (table ${outputs.table})`, owner: (user) => poolOwner(values, io, user) };
}

/** A deployed stage's owner: the `sub` of the pool's user named `user` (or `user` itself when it is a sub). */
async function poolOwner(values: { stage?: string | undefined; region?: string | undefined }, io: CommandIO, user: string): Promise<string> {
  const pool = await stagePool(
    io.root,
    { ...(values.stage === undefined ? {} : { stage: values.stage }), ...(values.region === undefined ? {} : { region: values.region }) },
    io.env,
  );
  const client = (io.cognito ?? ((region) => new CognitoIdentityProviderClient({ region })))(pool.region);
  const found = (await listUsers(client, pool)).find((each) => each.username === user || each.sub === user);
  if (found?.sub === undefined) {
    throw new UnknownUserError(`no user ${user} in the user pool of stage ${values.stage} (npm run user -- list --stage ${values.stage} lists them)`);
  }
  return found.sub;
}

/**
 * An owner's totals and limits, as lines. The limits are the overrides, else the defaults of
 * this environment's settings. An owner asked for by name (`where` given) that the ledger
 * holds nothing of — no usage today or this month, no turn running, no limits of its own —
 * is said to have no record (a name mistyped, or a user who has not run a turn yet).
 */
function describe(usage: OwnerUsage, io: CommandIO, where?: string): string {
  if (where !== undefined && isEmpty(usage)) {
    return `${usage.owner}: the usage ledger of ${where} has no record of this owner — no usage today or this month, no turn running, no limits of its own (a mistyped name? npm run user -- usage --all lists the owners it has)\n`;
  }
  const defaults = usageLimits(io.env);
  const limit = (name: keyof OwnerLimits, unit: string): string => {
    const override = usage.overrides.values[name];
    const value = override === undefined ? defaults[name] : override;
    const text = value === null ? 'none' : `${unit}${value}`;
    return override === undefined ? `${text} (default)` : text;
  };
  return [
    `${usage.owner}`,
    `  today   ${totals(usage.today)}   resets ${new Date(usage.resets.day).toISOString()}`,
    `  month   ${totals(usage.month)}   resets ${new Date(usage.resets.month).toISOString()}`,
    `  limits  daily ${limit('dailyUsd', '$')} · monthly ${limit('monthlyUsd', '$')} · turns/minute ${limit('turnsPerMinute', '')} · at once ${limit('concurrentTurns', '')} (${usage.inFlight} running)`,
    '',
  ].join('\n');
}

function totals(total: UsageTotals): string {
  const unknown = total.usdUnknownTurns > 0 ? ` (+${plural(total.usdUnknownTurns, 'turn')} of unknown price)` : '';
  const reserved = total.reservedUsd > 0 ? ` (+$${total.reservedUsd.toFixed(4)} reserved by turns running)` : '';
  return `$${total.usd.toFixed(4)}${unknown}${reserved}  ${plural(total.turns, 'turn')}  ${total.inputTokens} in · ${total.outputTokens} out · ${total.cacheReadTokens} cache read · ${total.cacheWriteTokens} cache write`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Whether the ledger holds nothing of the owner: no totals this day or month, no turn running, no overrides. */
function isEmpty(usage: OwnerUsage): boolean {
  const nothing = (total: UsageTotals) => Object.values(total).every((value) => value === 0);
  return nothing(usage.today) && nothing(usage.month) && usage.inFlight === 0 && Object.keys(usage.overrides.values).length === 0;
}
