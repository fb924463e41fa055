/**
 * The table layout: key and attribute names, key builders, and `createTable`. See
 * docs/aws.md for the item shapes.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { isValidId } from '@panto/core';

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
  // eslint-disable-next-line no-control-regex
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
 * (`gsi1pk`/`gsi1sk`), on-demand billing — waits until it is ACTIVE, and turns on TTL on
 * `expires_at` where the endpoint supports it. Idempotent; safe to race.
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
          ],
        }),
      )
      .catch((error: unknown) => {
        // Someone else created it between our DescribeTable and CreateTable.
        if (errorName(error) !== 'ResourceInUseException') throw error;
      });
  }
  await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1, maxDelay: 5 }, { TableName: tableName });
  await enableTimeToLive(client, tableName);
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
  return typeof error === 'object' && error !== null && typeof (error as { name?: unknown }).name === 'string'
    ? (error as { name: string }).name
    : undefined;
}
