/**
 * The activity-index backfill as the one-time migration that runs by itself, on DynamoDB
 * Local: sessions of a table made before the `byActivity` index (their META without its keys)
 * are indexed by the first run; a second run does nothing but read the marker; a run that dies
 * midway, or stops at its deadline, is finished by the next, which goes on from the last page
 * done; two runs at once do the work once. And the archive sweeper runs it before its first
 * sweep, so the idle sessions of an upgraded table are archived with no step by hand.
 */
import { GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ACTIVITY_BACKFILL_MIGRATION, backfillActivityIndexOnce, DynamoStore } from '@panto/aws';
import { RecordFactory } from '@panto/core/testing';
import { runArchiveSweep } from '@panto/functions';
import { describe, expect, inject, it } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { countCommands, localAws, type LocalAws } from './setup/aws-fixtures.js';

const OWNER = 'owner-backfill';
const MARKER = { pk: { S: `MIGRATION#${ACTIVITY_BACKFILL_MIGRATION}` }, sk: { S: 'MIGRATION' } };

/** `count` sessions of one turn each, as a table from before the index holds them: META without `gsi2pk`/`gsi2sk`. */
async function oldSessions(env: LocalAws, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const f = new RecordFactory(`b${n}`);
    const store = await DynamoStore.create({
      client: env.dynamo,
      tableName: env.tableName,
      owner: OWNER,
      s3: { client: env.s3, bucket: env.bucket },
      cwd: '/w',
    });
    await store.appendMessages([f.user(`question ${n}`)]);
    await store.appendMessages([f.assistant(`answer ${n}`)]);
    const key = { pk: { S: `SESSION#${store.sessionId()}` }, sk: { S: 'META' } };
    await env.dynamo.send(new UpdateItemCommand({ TableName: env.tableName, Key: key, UpdateExpression: 'REMOVE gsi2pk, gsi2sk' }));
    ids.push(store.sessionId());
  }
  return ids;
}

/** The sessions among `ids` whose META is in the index. */
async function indexed(env: LocalAws, ids: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const id of ids) {
    const { Item } = await env.dynamo.send(
      new GetItemCommand({ TableName: env.tableName, Key: { pk: { S: `SESSION#${id}` }, sk: { S: 'META' } }, ConsistentRead: true }),
    );
    if (Item?.gsi2pk !== undefined && Item.gsi2sk !== undefined) found.push(id);
  }
  return found;
}

async function marker(env: LocalAws): Promise<Record<string, unknown> | undefined> {
  const { Item } = await env.dynamo.send(new GetItemCommand({ TableName: env.tableName, Key: MARKER, ConsistentRead: true }));
  return Item;
}

/** A client on the run's DynamoDB Local whose `failAt`-th META UpdateItem fails before it is sent: a run that dies midway. */
function dyingClient(failAt: number): DynamoDBClient {
  const client = localDynamoDBClient(inject('dynamoEndpoint'));
  let updates = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const key = (args.input as { Key?: { sk?: { S?: string } } }).Key;
      if (context.commandName === 'UpdateItemCommand' && key?.sk?.S === 'META' && ++updates === failAt) throw new Error('the function was stopped');
      return next(args);
    },
    { step: 'initialize', name: 'dieMidway' },
  );
  return client;
}

describe('the activity-index backfill, once', () => {
  it('indexes an old table’s sessions on the first run, and a second run only reads its marker', async () => {
    const env = await localAws('backfill-once');
    const ids = await oldSessions(env, 5);
    expect(await indexed(env, ids)).toEqual([]);
    expect(await backfillActivityIndexOnce({ client: env.dynamo, tableName: env.tableName, pageSize: 4 })).toEqual({ status: 'done', indexed: 5 });
    expect(await indexed(env, ids)).toEqual(ids);
    expect(await marker(env)).toMatchObject({ done_at: { S: expect.stringMatching(/^\d{4}-/) }, migrated: { N: '5' } });
    expect(await marker(env)).not.toHaveProperty('cursor');

    // A session that loses its keys now is not the migration's business any more: it never scans again.
    const counts = countCommands(env.dynamo);
    await env.dynamo.send(
      new UpdateItemCommand({
        TableName: env.tableName,
        Key: { pk: { S: `SESSION#${ids[0]}` }, sk: { S: 'META' } },
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
      }),
    );
    counts.clear();
    expect(await backfillActivityIndexOnce({ client: env.dynamo, tableName: env.tableName })).toEqual({ status: 'done-before', indexed: 0 });
    expect(Object.fromEntries(counts)).toEqual({ GetItemCommand: 1 });
  });

  it('finishes, from the last page done, what a run that died midway left', async () => {
    const env = await localAws('backfill-interrupted');
    const ids = await oldSessions(env, 6);
    let now = Date.now();
    const clock = (): number => now;
    // Pages of 3 items (a session is 3: META and two entries): the 4th session's index write dies.
    await expect(backfillActivityIndexOnce({ client: dyingClient(4), tableName: env.tableName, pageSize: 3, now: clock })).rejects.toThrow('stopped');
    const done = await indexed(env, ids);
    expect(done.length).toBe(3);
    const left = await marker(env);
    expect(left).toMatchObject({ cursor: { S: expect.any(String) }, claim_id: { S: expect.any(String) } });
    expect(left).not.toHaveProperty('done_at');

    // While the dead run's claim holds, another run leaves it alone; once it lapses, one goes on.
    expect(await backfillActivityIndexOnce({ client: env.dynamo, tableName: env.tableName, pageSize: 3, now: clock })).toEqual({ status: 'busy', indexed: 0 });
    now += 6 * 60_000;
    const scans: unknown[] = [];
    env.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ScanCommand') scans.push((args.input as { ExclusiveStartKey?: unknown }).ExclusiveStartKey);
        return next(args);
      },
      { step: 'initialize', name: 'recordScans' },
    );
    expect(await backfillActivityIndexOnce({ client: env.dynamo, tableName: env.tableName, pageSize: 3, now: clock })).toEqual({ status: 'done', indexed: 3 });
    // It went on from the dead run's cursor, not from the start.
    expect(scans[0]).toEqual(JSON.parse(String((left?.cursor as { S?: string } | undefined)?.S)));
    expect(await indexed(env, ids)).toEqual(ids);
    expect(await marker(env)).toMatchObject({ migrated: { N: '6' } });
    expect(await backfillActivityIndexOnce({ client: env.dynamo, tableName: env.tableName, now: clock })).toEqual({ status: 'done-before', indexed: 0 });
  });

  it('stops at its deadline with its claim given up, and the next run goes on at once', async () => {
    const env = await localAws('backfill-deadline');
    const ids = await oldSessions(env, 4);
    let calls = 0;
    const clock = (): number => Date.now() + (calls++ > 2 ? 60_000 : 0);
    const first = await backfillActivityIndexOnce({ client: env.dynamo, tableName: env.tableName, pageSize: 3, now: clock, deadline: Date.now() + 30_000 });
    expect(first.status).toBe('interrupted');
    expect(first.indexed).toBeLessThan(4);
    expect(await marker(env)).not.toHaveProperty('claim_id');
    const second = await backfillActivityIndexOnce({ client: env.dynamo, tableName: env.tableName, pageSize: 3 });
    expect(second).toEqual({ status: 'done', indexed: 4 - first.indexed });
    expect(await indexed(env, ids)).toEqual(ids);
  });

  it('does the work once when two runs start together', async () => {
    const env = await localAws('backfill-race');
    const ids = await oldSessions(env, 4);
    const outcomes = await Promise.all([1, 2].map(() => backfillActivityIndexOnce({ client: env.dynamo, tableName: env.tableName, pageSize: 2 })));
    // One does it; the other finds it claimed (or, had it started later, finished).
    expect(outcomes.filter((outcome) => outcome.status === 'done')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status !== 'done').map((outcome) => outcome.status)).toEqual([expect.stringMatching(/^(busy|done-before)$/)]);
    expect(outcomes.reduce((sum, outcome) => sum + outcome.indexed, 0)).toBe(4);
    expect(await indexed(env, ids)).toEqual(ids);
  });
});

describe('the archive sweeper', () => {
  it('backfills an upgraded table before its first sweep, so its idle sessions are archived with no step by hand', async () => {
    const env = await localAws('backfill-sweeper');
    const ids = await oldSessions(env, 3);
    const deps = { dynamo: env.dynamo, s3: env.s3, tableName: env.tableName, bucket: env.bucket, archiveAfterMs: 0, clock: () => new Date(Date.now() + 1000) };
    const first = await runArchiveSweep(deps);
    expect(first).toMatchObject({ indexed: 3, archived: 3, failed: 0, complete: true });
    const again = await runArchiveSweep(deps);
    expect(again).toMatchObject({ indexed: 0, archived: 0 });
    expect(await indexed(env, ids)).toEqual([]); // archived: out of the index, as the sweeper leaves them
    expect(await marker(env)).toHaveProperty('done_at');
  });
});
