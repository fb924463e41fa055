/** An owner's sessions: list them newest first, delete one; purge what an expired one left behind. */
import {
  DeleteItemCommand,
  GetItemCommand,
  QueryCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { SessionNotFoundError } from '@panto/core';
import { batchWriteAll } from './batch-write.js';
import { InvalidCursorError, OffloadRequiredError } from './errors.js';
import { DELETE_META_CONDITION, namesFor, NOT_EXPIRED_FILTER, QUERY_OWNER, QUERY_SESSION } from './expressions.js';
import { decodeMeta, type SessionMetadata } from './metadata.js';
import { offloadPrefix, type S3Location } from './offload.js';
import {
  assertValidOwner,
  ATTR,
  errorName,
  GSI_BY_OWNER,
  isValidSessionId,
  META_SK,
  metaKey,
  ownerPk,
  SESSION_PK_PREFIX,
  sessionPk,
} from './table.js';

export const DEFAULT_LIST_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;
/** Index queries one `listSessions` call makes at most. */
const MAX_QUERIES_PER_PAGE = 5;

export interface ListSessionsOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  /** Sessions per page, 1–100 (default 20). */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** Tells the time, to hide sessions whose TTL passed (default: the system clock). */
  clock?: () => Date;
}

export interface SessionPage {
  sessions: SessionMetadata[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

/**
 * An owner's sessions, most recently updated first, from the `byOwner` index (eventually
 * consistent: a session appended to a moment ago may still show its previous place).
 *
 * @example
 * let cursor: string | undefined;
 * do {
 *   const page = await listSessions({ client, tableName, owner, cursor });
 *   for (const session of page.sessions) console.log(session.id, session.title);
 *   cursor = page.nextCursor ?? undefined;
 * } while (cursor !== undefined);
 */
export async function listSessions(options: ListSessionsOptions): Promise<SessionPage> {
  assertValidOwner(options.owner);
  const limit = options.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  let startKey = options.cursor === undefined ? undefined : decodeCursor(options.cursor, options.owner);
  const nowSeconds = Math.floor((options.clock ?? (() => new Date()))().getTime() / 1000);
  const sessions: SessionMetadata[] = [];
  let queries = 0;
  do {
    const page = await options.client.send(
      new QueryCommand({
        TableName: options.tableName,
        IndexName: GSI_BY_OWNER,
        KeyConditionExpression: QUERY_OWNER,
        FilterExpression: NOT_EXPIRED_FILTER,
        ExpressionAttributeNames: namesFor(QUERY_OWNER, NOT_EXPIRED_FILTER),
        ExpressionAttributeValues: { ':gsi1pk': { S: ownerPk(options.owner) }, ':now_seconds': { N: String(nowSeconds) } },
        ScanIndexForward: false,
        Limit: limit - sessions.length,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    for (const item of page.Items ?? []) {
      const source = `dynamodb:${options.tableName}/${item[ATTR.pk]?.S ?? '?'}/${META_SK}`;
      sessions.push(decodeMeta(item, source).metadata);
    }
    startKey = page.LastEvaluatedKey;
    // Expired sessions (filtered out) can make pages come back short or empty; a page may
    // then hold fewer than `limit` sessions, but a call never loops on them unboundedly.
  } while (startKey !== undefined && sessions.length < limit && ++queries < MAX_QUERIES_PER_PAGE);
  return { sessions, nextCursor: startKey === undefined ? null : encodeCursor(startKey) };
}

const CURSOR_KEYS = [ATTR.pk, ATTR.sk, ATTR.gsi1pk, ATTR.gsi1sk] as const;

/** A LastEvaluatedKey of the `byOwner` index as an opaque base64url string. */
export function encodeCursor(key: Record<string, AttributeValue>): string {
  const plain: Record<string, string> = {};
  for (const name of CURSOR_KEYS) plain[name] = key[name]?.S ?? '';
  return Buffer.from(JSON.stringify(plain), 'utf8').toString('base64url');
}

/** The ExclusiveStartKey a cursor stands for; `InvalidCursorError` unless it is one of this owner's. */
export function decodeCursor(cursor: string, owner: string): Record<string, AttributeValue> {
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch (error) {
    throw new InvalidCursorError('not a cursor this service issued', { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCursorError('not a cursor this service issued');
  const fields = value as Record<string, unknown>;
  if (Object.keys(fields).length !== CURSOR_KEYS.length || CURSOR_KEYS.some((name) => typeof fields[name] !== 'string')) {
    throw new InvalidCursorError('not a cursor this service issued');
  }
  const key = fields as Record<(typeof CURSOR_KEYS)[number], string>;
  if (key.gsi1pk !== ownerPk(owner) || !key.pk.startsWith(SESSION_PK_PREFIX) || key.sk !== META_SK) {
    throw new InvalidCursorError('the cursor belongs to another listing');
  }
  return Object.fromEntries(CURSOR_KEYS.map((name) => [name, { S: key[name] }]));
}

export interface DeleteSessionOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  /** The store's S3 location; needed when the session has offloaded entries. */
  s3?: S3Location;
}

/**
 * Deletes a session of `owner`: its META item first (one conditional delete, so the
 * session disappears at once and every handle's next append fails), then its entry items
 * and offloaded texts. `SessionNotFoundError` if it is not this owner's (or is missing).
 *
 * @example
 * await deleteSession({ client, tableName, owner: 'user-1', sessionId, s3: { client: s3, bucket } });
 */
export async function deleteSession(options: DeleteSessionOptions): Promise<void> {
  const { client, tableName, owner, sessionId, s3 } = options;
  assertValidOwner(owner);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  const { Item: meta } = await client.send(new GetItemCommand({ TableName: tableName, Key: metaKey(sessionId), ConsistentRead: true }));
  if (meta?.[ATTR.owner]?.S !== owner) throw new SessionNotFoundError(sessionId);

  const partition = await readPartition(client, tableName, sessionId);
  if (partition.refs.length > 0 && s3 === undefined) {
    throw new OffloadRequiredError(sessionId, 0, `${partition.refs.length} entry items are offloaded to S3 and would be left behind; nothing was deleted`);
  }

  try {
    await client.send(
      new DeleteItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        ConditionExpression: DELETE_META_CONDITION,
        ExpressionAttributeNames: namesFor(DELETE_META_CONDITION),
        ExpressionAttributeValues: { ':owner': { S: owner } },
      }),
    );
  } catch (error) {
    if (errorName(error) === 'ConditionalCheckFailedException') throw new SessionNotFoundError(sessionId, { cause: error });
    throw error;
  }
  await removePartition(client, tableName, sessionId, partition, s3);
}

export interface PurgeSessionItemsOptions {
  client: DynamoDBClient;
  tableName: string;
  sessionId: string;
  /** The store's S3 location; needed when the session has offloaded entries. */
  s3?: S3Location;
}

export interface PurgeResult {
  /** False when the session has a META item (it is live, e.g. re-created under the same id): nothing was deleted. */
  purged: boolean;
  /** Items deleted from the session's partition. */
  items: number;
  /** Offloaded texts the deleted items pointed at (objects left under the offload prefix are deleted too, uncounted). */
  offloads: number;
}

/**
 * Deletes what is left of a session whose META item is gone — in practice, one DynamoDB's
 * TTL expired: every remaining item of its partition and its offloaded texts (those its
 * items point at, then everything under its offload prefix). Idempotent: a second run, or
 * a run on a session with nothing left, deletes nothing. A session that has a META item
 * is live and left alone (`purged: false`). `OffloadRequiredError`, deleting nothing, if
 * items point at S3 and `s3` is not given.
 *
 * @example
 * await purgeSessionItems({ client, tableName, sessionId, s3: { client: s3, bucket } });
 */
export async function purgeSessionItems(options: PurgeSessionItemsOptions): Promise<PurgeResult> {
  const { client, tableName, sessionId, s3 } = options;
  if (!isValidSessionId(sessionId)) throw new RangeError(`not a session id: ${JSON.stringify(sessionId)}`);
  const partition = await readPartition(client, tableName, sessionId);
  if (partition.hasMeta) return { purged: false, items: 0, offloads: 0 };
  if (partition.refs.length > 0 && s3 === undefined) {
    throw new OffloadRequiredError(sessionId, 0, `${partition.refs.length} items are offloaded to S3 and would be left behind; nothing was deleted`);
  }
  await removePartition(client, tableName, sessionId, partition, s3);
  return { purged: true, items: partition.keys.length, offloads: partition.refs.length };
}

/** A session's partition as deletion needs it. */
interface Partition {
  /** Whether its META item exists. */
  hasMeta: boolean;
  /** The keys of every other item (the entry items). */
  keys: Array<Record<string, AttributeValue>>;
  /** The offloaded texts those items point at. */
  refs: Array<{ bucket: string; key: string }>;
}

/** Every item of the session's partition, keys and offload pointers only (paginated, consistent). */
async function readPartition(client: DynamoDBClient, tableName: string, sessionId: string): Promise<Partition> {
  const partition: Partition = { hasMeta: false, keys: [], refs: [] };
  let startKey: Record<string, AttributeValue> | undefined;
  const projection = `#${ATTR.pk}, #${ATTR.sk}, #${ATTR.linesBucket}, #${ATTR.linesRef}`;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: QUERY_SESSION,
        ProjectionExpression: projection,
        ExpressionAttributeNames: namesFor(QUERY_SESSION, projection),
        ExpressionAttributeValues: { ':pk': { S: sessionPk(sessionId) } },
        ConsistentRead: true,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    for (const item of page.Items ?? []) {
      if (item[ATTR.sk]?.S === META_SK) {
        partition.hasMeta = true;
        continue;
      }
      partition.keys.push({ [ATTR.pk]: item[ATTR.pk]!, [ATTR.sk]: item[ATTR.sk]! });
      const bucket = item[ATTR.linesBucket]?.S;
      const key = item[ATTR.linesRef]?.S;
      if (bucket !== undefined && key !== undefined) partition.refs.push({ bucket, key });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return partition;
}

/**
 * Deletes the partition's non-META items and the session's offloaded texts. The texts go
 * first: should a step fail, a rerun still finds the items that point at them.
 */
async function removePartition(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
  partition: Partition,
  s3: S3Location | undefined,
): Promise<void> {
  if (s3 !== undefined) {
    await deleteObjects(s3.client, partition.refs);
    await deleteOffloads(s3, sessionId);
  }
  await batchWriteAll(client, tableName, partition.keys.map((Key) => ({ DeleteRequest: { Key } })));
}

/** Deletes the given objects, up to 1,000 per request and bucket. */
export async function deleteObjects(client: S3Client, objects: ReadonlyArray<{ bucket: string; key: string }>): Promise<void> {
  const byBucket = new Map<string, string[]>();
  for (const { bucket, key } of objects) {
    const keys = byBucket.get(bucket) ?? [];
    keys.push(key);
    byBucket.set(bucket, keys);
  }
  for (const [bucket, keys] of byBucket) {
    for (let start = 0; start < keys.length; start += 1000) {
      await client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: keys.slice(start, start + 1000).map((Key) => ({ Key })), Quiet: true },
        }),
      );
    }
  }
}

/** Deletes every object under the session's offload prefix (including ones a lost race left behind). */
export async function deleteOffloads(s3: S3Location, sessionId: string): Promise<void> {
  const prefix = offloadPrefix(s3, sessionId);
  let token: string | undefined;
  do {
    const page = await s3.client.send(
      new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix, ...(token === undefined ? {} : { ContinuationToken: token }) }),
    );
    const objects = (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [{ Key: object.Key }]));
    if (objects.length > 0) {
      await s3.client.send(new DeleteObjectsCommand({ Bucket: s3.bucket, Delete: { Objects: objects, Quiet: true } }));
    }
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
}
