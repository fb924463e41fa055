/**
 * The table layout: key and attribute names, key builders, and `createTable`. See
 * docs/aws.md for the item shapes.
 */
import { createHash } from 'node:crypto';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ScanCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type AttributeValue,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import { isValidId } from '@panto/core';
import { ACTIVITY_BACKFILL_CONDITION, ACTIVITY_BACKFILL_FILTER, ACTIVITY_BACKFILL_UPDATE, namesFor } from './expressions.js';

/** Attribute names. Expressions refer to each as `#<name>` (see expressions.ts). */
export const ATTR = {
  pk: 'pk',
  sk: 'sk',
  // META
  owner: 'owner',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  /** Newest entry id (the leaf); absent while the session is empty. */
  head: 'head',
  /** The parent the next append chains to: `head`, or the dangling prompt's parent. */
  nextParent: 'next_parent',
  entryCount: 'entry_count',
  activeProvider: 'active_provider',
  activeModel: 'active_model',
  title: 'title',
  /** The session's JSONL header line, with its newline. */
  header: 'header',
  gsi1pk: 'gsi1pk',
  gsi1sk: 'gsi1sk',
  ttlSeconds: 'ttl_seconds',
  expiresAt: 'expires_at',
  /** The turn lease (see lease.ts): its holder's id — the fencing token appends check — and expiry (epoch ms). */
  leaseId: 'lease_id',
  leaseExpiresAt: 'lease_expires_at',
  /** When the lease was taken (epoch ms), and the session's entry count then: the running turn's first entry. */
  leaseStartedAt: 'lease_started_at',
  leaseEntryCount: 'lease_entry_count',
  /** The lease id a stop was asked of (`requestTurnStop`); its holder reads it back when it renews. */
  stopRequested: 'stop_requested',
  /** Set when the session is being deleted: META is a tombstone (see deleteSession). */
  deletedAt: 'deleted_at',
  /** A random id per creation of the session: caches tell a session made again under the same id apart. */
  incarnation: 'incarnation',
  // META: archival (see archive-session.ts, restore-session.ts)
  /** The `byActivity` index keys: a shard of the session id, and `<last activity>#<sessionId>`. Absent once archived. */
  gsi2pk: 'gsi2pk',
  gsi2sk: 'gsi2sk',
  /** Set while the session is archived: its entries are in the archive object, not in the table. */
  archivedAt: 'archived_at',
  /** The session's newest archive object, and what it holds; kept after a restore. */
  archiveBucket: 'archive_bucket',
  archiveKey: 'archive_key',
  archiveBytes: 'archive_bytes',
  archiveSha256: 'archive_sha256',
  archiveEntryCount: 'archive_entry_count',
  archiveHead: 'archive_head',
  /** Held by a sweeper removing an archived session's items, or by a request restoring it (epoch ms expiry). */
  archiveClaimId: 'archive_claim_id',
  archiveClaimExpiresAt: 'archive_claim_expires_at',
  /** ISO-8601 time of the last restore: a restored session counts as active from then. */
  restoredAt: 'restored_at',
  // entry items
  /** JSONL text of the item's entries, each line ending in `\n`. */
  lines: 'lines',
  /** S3 key of an offloaded `lines` text, and its bucket. */
  linesRef: 'lines_ref',
  linesBucket: 'lines_bucket',
  linesBytes: 'lines_bytes',
  linesSha256: 'lines_sha256',
  /** How many entries (lines) the item holds. */
  count: 'count',
  /** Whether the item's last line ends its append batch. */
  batchEnd: 'batch_end',
  // idempotency records (see idempotency.ts); `expires_at` is their TTL too
  status: 'status',
  claimId: 'claim_id',
  fingerprint: 'fingerprint',
  inProgressExpiresAt: 'in_progress_expires_at',
  responseStatus: 'response_status',
  responseBody: 'response_body',
  responseRef: 'response_ref',
} as const;

export const META_SK = 'META';
export const ENTRY_SK_PREFIX = 'E#';
export const SESSION_PK_PREFIX = 'SESSION#';
export const OWNER_PK_PREFIX = 'OWNER#';
export const GSI_BY_OWNER = 'byOwner';
export const GSI_BY_ACTIVITY = 'byActivity';
export const ACTIVITY_PK_PREFIX = 'ACTIVITY#';
/**
 * Shards of the `byActivity` index. Every append writes its index key, so one partition key
 * for all sessions would put every append of the service on one index partition; sixteen
 * spread them, and the sweeper queries each.
 */
export const ACTIVITY_SHARDS = 16;

/** Digits of the entry index in an entry item's sort key (`E#000000000042`). */
const ENTRY_INDEX_DIGITS = 12;

export function sessionPk(sessionId: string): string {
  return `${SESSION_PK_PREFIX}${sessionId}`;
}

/** The sort key of the entry item whose first entry is the session's `index`-th (0-based). */
export function entrySk(index: number): string {
  return `${ENTRY_SK_PREFIX}${String(index).padStart(ENTRY_INDEX_DIGITS, '0')}`;
}

/** The index encoded in an entry sort key, or undefined for any other sort key. */
export function entryIndexOf(sk: string): number | undefined {
  if (!sk.startsWith(ENTRY_SK_PREFIX)) return undefined;
  const digits = sk.slice(ENTRY_SK_PREFIX.length);
  if (!/^\d+$/.test(digits)) return undefined;
  return Number(digits);
}

/** The key of a session's META item. */
export function metaKey(sessionId: string): Record<string, AttributeValue> {
  return { [ATTR.pk]: { S: sessionPk(sessionId) }, [ATTR.sk]: { S: META_SK } };
}

export function ownerPk(owner: string): string {
  return `${OWNER_PK_PREFIX}${owner}`;
}

/** The GSI sort key: newest first sorts by update time, ties broken by session id. */
export function ownerSk(updatedAt: string, sessionId: string): string {
  return `${updatedAt}#${sessionId}`;
}

/** The `byActivity` partition of a session: one of {@link ACTIVITY_SHARDS}, by a hash of its id. */
export function activityPk(sessionId: string): string {
  return activityShardPk(createHash('sha256').update(sessionId).digest().readUInt32BE(0) % ACTIVITY_SHARDS);
}

/** The `byActivity` partition key of shard `shard` (0-based). */
export function activityShardPk(shard: number): string {
  return `${ACTIVITY_PK_PREFIX}${String(shard).padStart(2, '0')}`;
}

/** The `byActivity` sort key: the last write (or restore), then the session id — `< <cutoff ISO time>` finds the cold ones. */
export function activitySk(at: string, sessionId: string): string {
  return `${at}#${sessionId}`;
}

/**
 * Whether `id` can name a session: the id rule of @panto/core (`isValidId`). Everything else
 * (path separators, `#`, control characters, whitespace) is refused before it reaches a key
 * or an S3 path.
 */
export function isValidSessionId(id: unknown): id is string {
  return isValidId(id);
}

const MAX_OWNER_LENGTH = 256;

/** Refuses an owner that is empty, over-long or holds control characters (a programmer error). */
export function assertValidOwner(owner: unknown): asserts owner is string {
  if (typeof owner !== 'string' || owner === '' || owner.length > MAX_OWNER_LENGTH || /[\u0000-\u001f\u007f]/.test(owner)) {
    throw new RangeError(`owner must be 1–${MAX_OWNER_LENGTH} characters without control characters`);
  }
}

export interface TableOptions {
  client: DynamoDBClient;
  tableName: string;
}

/**
 * Creates the sessions table if it is absent — keys `pk`/`sk`, the `byOwner` GSI
 * (`gsi1pk`/`gsi1sk`) and the sparse `byActivity` GSI (`gsi2pk`/`gsi2sk`, keys only),
 * on-demand billing — waits until it is ACTIVE, and turns on TTL on `expires_at` where the
 * endpoint supports it. A table made before `byActivity` existed gets it added (UpdateTable),
 * and its sessions indexed ({@link backfillActivityIndex}). Idempotent; safe to race.
 *
 * @example
 * await createTable({ client: new DynamoDBClient({}), tableName: 'panto-sessions' });
 */
export async function createTable({ client, tableName }: TableOptions): Promise<void> {
  const exists = await client.send(new DescribeTableCommand({ TableName: tableName })).then(
    () => true,
    (error: unknown) => {
      if (errorName(error) === 'ResourceNotFoundException') return false;
      throw error;
    },
  );
  if (!exists) {
    await client
      .send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: ATTR.pk, AttributeType: 'S' },
            { AttributeName: ATTR.sk, AttributeType: 'S' },
            { AttributeName: ATTR.gsi1pk, AttributeType: 'S' },
            { AttributeName: ATTR.gsi1sk, AttributeType: 'S' },
            ...ACTIVITY_ATTRIBUTES,
          ],
          KeySchema: [
            { AttributeName: ATTR.pk, KeyType: 'HASH' },
            { AttributeName: ATTR.sk, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: [
            {
              IndexName: GSI_BY_OWNER,
              KeySchema: [
                { AttributeName: ATTR.gsi1pk, KeyType: 'HASH' },
                { AttributeName: ATTR.gsi1sk, KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
            BY_ACTIVITY_INDEX,
          ],
        }),
      )
      .catch((error: unknown) => {
        // Someone else created it between our DescribeTable and CreateTable.
        if (errorName(error) !== 'ResourceInUseException') throw error;
      });
  }
  await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1, maxDelay: 5 }, { TableName: tableName });
  if (await addActivityIndex(client, tableName)) await backfillActivityIndex({ client, tableName });
  await enableTimeToLive(client, tableName);
}

const ACTIVITY_ATTRIBUTES = [
  { AttributeName: ATTR.gsi2pk, AttributeType: 'S' as const },
  { AttributeName: ATTR.gsi2sk, AttributeType: 'S' as const },
];

/**
 * The sparse index the archive sweeper queries: META items of sessions whose entries are in
 * the table, by shard and last activity. Keys only — the sweeper reads META itself,
 * consistently — so an append's index write is one small item.
 */
const BY_ACTIVITY_INDEX: GlobalSecondaryIndex = {
  IndexName: GSI_BY_ACTIVITY,
  KeySchema: [
    { AttributeName: ATTR.gsi2pk, KeyType: 'HASH' },
    { AttributeName: ATTR.gsi2sk, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'KEYS_ONLY' },
};

/**
 * Adds `byActivity` to a table made without it (the local stack keeps its table across runs)
 * and waits until the index is ACTIVE. Returns whether this call added it.
 */
async function addActivityIndex(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const indexStatus = async (): Promise<string | undefined> => {
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === GSI_BY_ACTIVITY)?.IndexStatus ?? undefined;
  };
  let status = await indexStatus();
  let added = false;
  if (status === undefined) {
    added = await client
      .send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: ACTIVITY_ATTRIBUTES,
          GlobalSecondaryIndexUpdates: [{ Create: BY_ACTIVITY_INDEX }],
        }),
      )
      .then(
        () => true,
        (error: unknown) => {
          // Another process is adding it (or the table is being updated): wait for it below.
          if (
            errorName(error) === 'ResourceInUseException' ||
            (errorName(error) === 'ValidationException' && /already exists/i.test(String((error as Error).message)))
          )
            return false;
          throw error;
        },
      );
    status = await indexStatus();
  }
  for (let waited = 0; status !== 'ACTIVE'; waited += 1000) {
    if (waited > 300_000) throw new Error(`index ${GSI_BY_ACTIVITY} of ${tableName} did not become ACTIVE (${status ?? 'missing'})`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    status = await indexStatus();
  }
  return added;
}

/**
 * Puts the sessions of a table made before the `byActivity` index existed into it, keyed by
 * their last write, so the archive sweeper finds the idle ones too (a session that is
 * written to joins the index with that append anyway). A one-time migration, and the one
 * place that scans the table: `createTable` runs it when it adds the index; on AWS, run it
 * once after deploying the index. Idempotent: each META item is updated only while it is
 * still outside the index. Returns how many it indexed.
 *
 * @example
 * await backfillActivityIndex({ client: new DynamoDBClient({}), tableName: 'panto-sessions' });
 */
export async function backfillActivityIndex({ client, tableName }: TableOptions): Promise<number> {
  let indexed = 0;
  let startKey: Record<string, AttributeValue> | undefined;
  const projection = `#${ATTR.pk}, #${ATTR.updatedAt}`;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: ACTIVITY_BACKFILL_FILTER,
        ProjectionExpression: projection,
        ExpressionAttributeNames: namesFor(ACTIVITY_BACKFILL_FILTER, projection),
        ExpressionAttributeValues: { ':meta_sk': { S: META_SK } },
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
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
            ExpressionAttributeValues: {
              ':gsi2pk': { S: activityPk(sessionId) },
              ':gsi2sk': { S: activitySk(updatedAt, sessionId) },
            },
          }),
        );
        indexed++;
      } catch (error) {
        // Appended (and so indexed), archived or deleted since the page was read.
        if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return indexed;
}

async function enableTimeToLive(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    const { TimeToLiveDescription: ttl } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    if (ttl?.TimeToLiveStatus === 'ENABLED' || ttl?.TimeToLiveStatus === 'ENABLING') return;
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: ATTR.expiresAt, Enabled: true },
      }),
    );
  } catch (error) {
    // Emulators without TTL answer with an unknown-operation error; the table works without it.
    const name = errorName(error);
    if (name === 'UnknownOperationException' || name === 'NotImplementedException') return;
    if (name === 'ValidationException' && /already enabled/i.test(String((error as Error).message))) return;
    throw error;
  }
}

/** The `name` of an SDK error (its exception type), or undefined. */
export function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && typeof (error as { name?: unknown }).name === 'string' ? (error as { name: string }).name : undefined;
}
