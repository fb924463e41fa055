/**
 * Deleting a session, linearizably: META becomes a tombstone first (one conditional write
 * that every later append, lease and read refuses), and only then is the partition read and
 * emptied — so nothing committed before the tombstone is missed and nothing can be
 * committed after it. The same purge removes what a TTL-expired session leaves behind.
 */
import { DeleteItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SessionNotFoundError, systemClock } from '@panto/core/store-kit';
import { offloadPrefix, type S3Location } from '../entries/offload.js';
import { OffloadRequiredError } from '../errors.js';
import { deleteObjects, deletePrefix } from '../s3/s3-objects.js';
import { archivePrefix, exportPrefix } from '../s3/session-objects.js';
import { batchWriteAll } from '../table/batch-write.js';
import { DELETE_TOMBSTONE_CONDITION, namesFor, TOMBSTONE_CONDITION, TOMBSTONE_UPDATE } from '../table/expressions.js';
import { metaKey } from '../table/keys.js';
import { isConditionalCheckFailed } from '../table/sdk-errors.js';
import { assertValidOwner, isValidSessionId } from '../table/validation.js';
import { readPartition, type Partition } from './read-partition.js';

/**
 * How long a tombstone lives at least (its `expires_at` is set this far ahead): longer than
 * any request that may still be writing to the session when the delete begins — a Lambda
 * invocation lasts at most 15 minutes — so that when a tombstone a crashed delete left is
 * removed by TTL, the purge that follows also finds whatever those requests wrote.
 */
export const TOMBSTONE_TTL_SECONDS = 30 * 60;

/**
 * Where `exportSession` writes (its `s3` client and `bucket`), and where the archive sweeper
 * puts archives (`archive/<sessionId>/`, the same bucket in the service).
 */
export interface ExportLocation {
  client: S3Client;
  bucket: string;
}

export interface DeleteSessionOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  /** The store's S3 location; needed when the session has offloaded entries. */
  s3?: S3Location;
  /** Where the session's exports and archives are (`exports/<sessionId>/`, `archive/<sessionId>/`); they are deleted too. Left alone when absent. */
  exports?: ExportLocation;
  /** Tells the time for the tombstone (default: the system clock). */
  clock?: () => Date;
}

/**
 * Deletes a session of `owner`, leaving nothing behind: its META item, every entry item, the
 * offloaded texts and (with `exports`) its exports. `SessionNotFoundError` if it is not this
 * owner's, or missing.
 *
 * 1. META becomes a tombstone (one conditional UpdateItem): the session is gone at once —
 *    every append, lease, open, load and export of it refuses from then on, and it leaves
 *    the owner's listing — and it expires in {@link TOMBSTONE_TTL_SECONDS}.
 * 2. The partition is read (consistent) and emptied, the S3 objects first; then the
 *    tombstone is deleted.
 *
 * A delete that fails after step 1 leaves a tombstone: the session stays deleted, a repeated
 * `deleteSession` finishes the job (and resolves), and otherwise DynamoDB's TTL removes the
 * tombstone and the TTL cleanup (`purgeSessionItems`) the rest.
 *
 * @example
 * await deleteSession({ client, tableName, owner: 'user-1', sessionId, s3: { client: s3, bucket }, exports: { client: s3, bucket } });
 */
export async function deleteSession(options: DeleteSessionOptions): Promise<void> {
  const { client, tableName, owner, sessionId, s3, exports } = options;
  assertValidOwner(owner);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  if (s3 === undefined) {
    // Refuse before the tombstone, deleting nothing, when S3 objects would be left behind.
    const partition = await readPartition(client, tableName, sessionId);
    if (partition.meta === null || partition.meta.owner !== owner) throw new SessionNotFoundError(sessionId);
    if (partition.refs.length > 0) {
      throw new OffloadRequiredError(sessionId, 0, `${partition.refs.length} entry items are offloaded to S3 and would be left behind; nothing was deleted`);
    }
  }
  const now = (options.clock ?? systemClock)();
  try {
    await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        UpdateExpression: TOMBSTONE_UPDATE,
        ConditionExpression: TOMBSTONE_CONDITION,
        ExpressionAttributeNames: namesFor(TOMBSTONE_UPDATE, TOMBSTONE_CONDITION),
        ExpressionAttributeValues: {
          ':owner': { S: owner },
          ':deleted_at': { S: now.toISOString() },
          ':expires_at': { N: String(Math.floor(now.getTime() / 1000) + TOMBSTONE_TTL_SECONDS) },
        },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new SessionNotFoundError(sessionId, { cause: error });
    throw error;
  }
  const partition = await readPartition(client, tableName, sessionId);
  if (partition.refs.length > 0 && s3 === undefined) {
    throw new OffloadRequiredError(
      sessionId,
      0,
      `${partition.refs.length} entry items appended during the delete are offloaded to S3; the session is deleted, and its items are left to the TTL cleanup`,
    );
  }
  await removePartition(client, tableName, sessionId, partition, s3, exports);
}

export interface PurgeSessionItemsOptions {
  client: DynamoDBClient;
  tableName: string;
  sessionId: string;
  /** The store's S3 location; needed when the session has offloaded entries. */
  s3?: S3Location;
  /** Where the session's exports and archives are (`exports/<sessionId>/`, `archive/<sessionId>/`); they are deleted too. Left alone when absent. */
  exports?: ExportLocation;
}

export interface PurgeResult {
  /** False when the session is live (a META item that is not a tombstone, e.g. re-created under the same id): nothing was deleted. */
  purged: boolean;
  /** Entry items deleted from the session's partition (a tombstone, deleted too, is not counted). */
  items: number;
  /** Offloaded texts the deleted items pointed at (objects left under the offload and export prefixes are deleted too, uncounted). */
  offloads: number;
}

/**
 * Deletes what is left of a session that is gone — its META item deleted by DynamoDB's TTL
 * (an expired session, or the tombstone of a delete that did not finish) or still a
 * tombstone: every remaining item of its partition (the tombstone last), its offloaded texts
 * (those its items point at, then everything under its offload prefix) and, with `exports`,
 * its exports. Idempotent: a second run, or a run on a session with nothing left, deletes
 * nothing. A live session is left alone (`purged: false`). `OffloadRequiredError`, deleting
 * nothing, if items point at S3 and `s3` is not given.
 *
 * @example
 * await purgeSessionItems({ client, tableName, sessionId, s3: { client: s3, bucket }, exports: { client: s3, bucket } });
 */
export async function purgeSessionItems(options: PurgeSessionItemsOptions): Promise<PurgeResult> {
  const { client, tableName, sessionId, s3, exports } = options;
  if (!isValidSessionId(sessionId)) throw new RangeError(`not a session id: ${JSON.stringify(sessionId)}`);
  const partition = await readPartition(client, tableName, sessionId);
  if (partition.meta !== null && !partition.meta.tombstone) return { purged: false, items: 0, offloads: 0 };
  if (partition.refs.length > 0 && s3 === undefined) {
    throw new OffloadRequiredError(sessionId, 0, `${partition.refs.length} items are offloaded to S3 and would be left behind; nothing was deleted`);
  }
  await removePartition(client, tableName, sessionId, partition, s3, exports);
  return { purged: true, items: partition.keys.length, offloads: partition.refs.length };
}

/**
 * Deletes the session's S3 objects, then the partition's entry items, then its tombstone
 * (if META is one). Objects go first: should a step fail, a rerun still finds the items
 * that point at them; the tombstone goes last, so that until everything else is gone the
 * session stays deleted and its TTL still triggers a purge.
 */
async function removePartition(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
  partition: Partition,
  s3: S3Location | undefined,
  exports: ExportLocation | undefined,
): Promise<void> {
  if (s3 !== undefined) {
    await deleteObjects(s3.client, partition.refs);
    await deletePrefix(s3.client, s3.bucket, offloadPrefix(s3, sessionId));
  }
  if (exports !== undefined) {
    await deletePrefix(exports.client, exports.bucket, exportPrefix(sessionId));
    await deletePrefix(exports.client, exports.bucket, archivePrefix(sessionId));
  }
  await batchWriteAll(
    client,
    tableName,
    partition.keys.map((Key) => ({ DeleteRequest: { Key } })),
  );
  if (partition.meta?.tombstone !== true) return;
  try {
    await client.send(
      new DeleteItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        ConditionExpression: DELETE_TOMBSTONE_CONDITION,
        ExpressionAttributeNames: namesFor(DELETE_TOMBSTONE_CONDITION),
      }),
    );
  } catch (error) {
    // Another delete (or TTL) removed it first: the session is gone either way.
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
