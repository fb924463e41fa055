/**
 * Indexing the sessions of a table made before the `byActivity` index existed, so the archive
 * sweeper finds the idle ones too (a session that is written to joins the index with that
 * append anyway): a paginated Scan — the one scan there is — that sets each unindexed META's
 * index keys with a conditional update.
 *
 * {@link backfillActivityIndexOnce} runs it as a one-time migration, by itself: the sweeper's
 * first run (and `createTable`, when it adds the index) calls it. A marker item
 * (`MIGRATION#activity-index-backfill`) holds a claim, the cursor of the last page finished and,
 * at the end, `done_at`: a run that is cut short (a crash, a timeout, its deadline) leaves the
 * cursor, and the next goes on from there; once done, a run costs one read.
 */
import { type AttributeValue, type DynamoDBClient, GetItemCommand, ScanCommand, type ScanCommandOutput, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { ATTR } from './attributes.js';
import {
  ACTIVITY_BACKFILL_CONDITION,
  ACTIVITY_BACKFILL_FILTER,
  ACTIVITY_BACKFILL_UPDATE,
  MIGRATION_CLAIM_CONDITION,
  MIGRATION_CLAIM_UPDATE,
  MIGRATION_DONE_UPDATE,
  MIGRATION_HELD_CONDITION,
  MIGRATION_PAGE_UPDATE,
  MIGRATION_RELEASE_UPDATE,
  namesFor,
} from './expressions.js';
import { activityPk, activitySk, META_SK, metaKey, migrationKey, SESSION_PK_PREFIX } from './keys.js';
import { isConditionalCheckFailed } from './sdk-errors.js';

export interface BackfillOptions {
  client: DynamoDBClient;
  tableName: string;
}

/** The marker's name: `MIGRATION#activity-index-backfill`. */
export const ACTIVITY_BACKFILL_MIGRATION = 'activity-index-backfill';
/** Items one Scan page reads (before its filter): a page's work, between two cursor writes. */
const DEFAULT_PAGE_SIZE = 500;
/** A run's claim lapses this long after its last page: then another run may go on. */
const DEFAULT_CLAIM_MS = 5 * 60_000;

/**
 * Puts every session outside the index into it, keyed by its last write — the whole table, as
 * one call (see {@link backfillActivityIndexOnce} for the resumable one-time run). Idempotent:
 * each META item is updated only while it is still outside the index. Returns how many it indexed.
 *
 * @example
 * await backfillActivityIndex({ client: new DynamoDBClient({}), tableName: 'panto-sessions' });
 */
export async function backfillActivityIndex({ client, tableName }: BackfillOptions): Promise<number> {
  let indexed = 0;
  let cursor: Record<string, AttributeValue> | undefined;
  do {
    const page = await scanPage(client, tableName, cursor, DEFAULT_PAGE_SIZE);
    indexed += await indexPage(client, tableName, page);
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  return indexed;
}

export interface BackfillOnceOptions extends BackfillOptions {
  /** Start no page after this (epoch ms): the run stops, gives its claim up, and the next goes on. */
  deadline?: number;
  /** Epoch ms (default `Date.now`). */
  now?: () => number;
  /** Items a Scan page reads (default 500). */
  pageSize?: number;
  /** How long a run's claim holds past its last page (default 5 minutes). */
  claimMs?: number;
}

/** What one call did: `done` (this run finished), `done-before` (nothing to do, ever), `interrupted` (its deadline), `busy` (another run holds it). */
export interface BackfillOutcome {
  status: 'done' | 'done-before' | 'interrupted' | 'busy';
  /** Sessions this run indexed. */
  indexed: number;
}

/**
 * The backfill as a one-time migration: runs it unless it has finished, going on from where
 * an earlier run stopped; safe to run twice at once (one claims it, the other is `busy`) and
 * to cut short anywhere (what it indexed stays; a page is at worst read twice).
 *
 * @example
 * const { status, indexed } = await backfillActivityIndexOnce({ client, tableName, deadline: Date.now() + 60_000 });
 */
export async function backfillActivityIndexOnce(options: BackfillOnceOptions): Promise<BackfillOutcome> {
  const { client, tableName } = options;
  const now = options.now ?? Date.now;
  const key = migrationKey(ACTIVITY_BACKFILL_MIGRATION);
  const marker = await client.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  if (marker.Item?.[ATTR.doneAt] !== undefined) return { status: 'done-before', indexed: 0 };
  const claim = await claimMigration(options, key, now);
  if (claim === null) return { status: 'busy', indexed: 0 };
  let cursor = claim.cursor;
  let indexed = 0;
  for (;;) {
    if (options.deadline !== undefined && now() > options.deadline) {
      await releaseClaim(options, key, claim.id);
      return { status: 'interrupted', indexed };
    }
    const page = await scanPage(client, tableName, cursor, options.pageSize ?? DEFAULT_PAGE_SIZE);
    const count = await indexPage(client, tableName, page);
    indexed += count;
    cursor = page.LastEvaluatedKey;
    if (!(await recordPage(options, key, claim.id, cursor, count, now))) return { status: 'busy', indexed };
    if (cursor === undefined) return { status: 'done', indexed };
  }
}

/** Takes the migration's claim; its cursor (undefined: from the start), or null when it is done or held. */
async function claimMigration(
  options: BackfillOnceOptions,
  key: Record<string, AttributeValue>,
  now: () => number,
): Promise<{ id: string; cursor: Record<string, AttributeValue> | undefined } | null> {
  const id = randomUUID();
  try {
    const { Attributes: marker } = await options.client.send(
      new UpdateItemCommand({
        TableName: options.tableName,
        Key: key,
        UpdateExpression: MIGRATION_CLAIM_UPDATE,
        ConditionExpression: MIGRATION_CLAIM_CONDITION,
        ExpressionAttributeNames: namesFor(MIGRATION_CLAIM_UPDATE, MIGRATION_CLAIM_CONDITION),
        ExpressionAttributeValues: {
          ':claim_id': { S: id },
          ':claim_expires_at': { N: String(now() + (options.claimMs ?? DEFAULT_CLAIM_MS)) },
          ':now': { N: String(now()) },
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const cursor = marker?.[ATTR.cursor]?.S;
    return { id, cursor: cursor === undefined ? undefined : (JSON.parse(cursor) as Record<string, AttributeValue>) };
  } catch (error) {
    if (isConditionalCheckFailed(error)) return null;
    throw error;
  }
}

/** Records a finished page (the last: done); false when the claim is no longer this run's. */
async function recordPage(
  options: BackfillOnceOptions,
  key: Record<string, AttributeValue>,
  claimId: string,
  cursor: Record<string, AttributeValue> | undefined,
  migrated: number,
  now: () => number,
): Promise<boolean> {
  const update = cursor === undefined ? MIGRATION_DONE_UPDATE : MIGRATION_PAGE_UPDATE;
  const values: Record<string, AttributeValue> = { ':claim_id': { S: claimId }, ':migrated': { N: String(migrated) } };
  if (cursor === undefined) values[':done_at'] = { S: new Date(now()).toISOString() };
  else {
    values[':cursor'] = { S: JSON.stringify(cursor) };
    values[':claim_expires_at'] = { N: String(now() + (options.claimMs ?? DEFAULT_CLAIM_MS)) };
  }
  try {
    await options.client.send(
      new UpdateItemCommand({
        TableName: options.tableName,
        Key: key,
        UpdateExpression: update,
        ConditionExpression: MIGRATION_HELD_CONDITION,
        ExpressionAttributeNames: namesFor(update, MIGRATION_HELD_CONDITION),
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

async function releaseClaim(options: BackfillOnceOptions, key: Record<string, AttributeValue>, claimId: string): Promise<void> {
  try {
    await options.client.send(
      new UpdateItemCommand({
        TableName: options.tableName,
        Key: key,
        UpdateExpression: MIGRATION_RELEASE_UPDATE,
        ConditionExpression: MIGRATION_HELD_CONDITION,
        ExpressionAttributeNames: namesFor(MIGRATION_RELEASE_UPDATE, MIGRATION_HELD_CONDITION),
        ExpressionAttributeValues: { ':claim_id': { S: claimId } },
      }),
    );
  } catch (error) {
    // Lapsed and taken by another run: it is that run's now.
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

function scanPage(client: DynamoDBClient, tableName: string, cursor: Record<string, AttributeValue> | undefined, limit: number): Promise<ScanCommandOutput> {
  const projection = `#${ATTR.pk}, #${ATTR.updatedAt}`;
  return client.send(
    new ScanCommand({
      TableName: tableName,
      FilterExpression: ACTIVITY_BACKFILL_FILTER,
      ProjectionExpression: projection,
      ExpressionAttributeNames: namesFor(ACTIVITY_BACKFILL_FILTER, projection),
      ExpressionAttributeValues: { ':meta_sk': { S: META_SK } },
      Limit: limit,
      ...(cursor === undefined ? {} : { ExclusiveStartKey: cursor }),
    }),
  );
}

/** Indexes the page's META items that are still outside the index; how many it did. */
async function indexPage(client: DynamoDBClient, tableName: string, page: ScanCommandOutput): Promise<number> {
  let indexed = 0;
  for (const item of page.Items ?? []) {
    const pk = item[ATTR.pk]?.S;
    const updatedAt = item[ATTR.updatedAt]?.S;
    if (pk === undefined || updatedAt === undefined || !pk.startsWith(SESSION_PK_PREFIX)) continue;
    const sessionId = pk.slice(SESSION_PK_PREFIX.length);
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: metaKey(sessionId),
          UpdateExpression: ACTIVITY_BACKFILL_UPDATE,
          ConditionExpression: ACTIVITY_BACKFILL_CONDITION,
          ExpressionAttributeNames: namesFor(ACTIVITY_BACKFILL_UPDATE, ACTIVITY_BACKFILL_CONDITION),
          ExpressionAttributeValues: { ':gsi2pk': { S: activityPk(sessionId) }, ':gsi2sk': { S: activitySk(updatedAt, sessionId) } },
        }),
      );
      indexed++;
    } catch (error) {
      // Appended (and so indexed), archived or deleted since the page was read.
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
  return indexed;
}
