/**
 * Archiving one cold session: its JSONL to S3, then its entry items out of the table, META
 * staying behind (listed, with its title, times and entry count) to say where the entries
 * went. Every step is conditional or idempotent, so a sweeper that dies anywhere leaves the
 * session whole — its items, or a verified archive that META points at, or both — and the
 * next sweep finishes the job; two sweepers at once archive a session once. See
 * docs/aws.md, "Archive".
 */
import { createHash, randomUUID } from 'node:crypto';
import { UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { SessionCorruptError, systemClock } from '@panto/core/store-kit';
import type { S3Location } from '../entries/offload.js';
import { ArchiveClaimLostError } from '../errors.js';
import { type GarbageCollection, uploadSessionLines } from '../jsonl/session-lines.js';
import { lastActivity, readMeta, type ArchiveObject, type MetaRecord } from '../meta/meta-item.js';
import { isExpired } from '../meta/visibility.js';
import { deleteObjects, deletePrefix } from '../s3/s3-objects.js';
import { archiveKey, archivePrefix } from '../s3/session-objects.js';
import { readPartition } from '../sessions/read-partition.js';
import {
  ARCHIVE_CONDITION,
  ARCHIVE_CONDITION_EMPTY,
  ARCHIVE_CONDITION_INCARNATION,
  ARCHIVE_FINISH_UPDATE,
  ARCHIVE_UPDATE,
  ARCHIVE_UPDATE_HEAD,
  namesFor,
} from '../table/expressions.js';
import { metaKey } from '../table/keys.js';
import { isConditionalCheckFailed, sdkErrorName } from '../table/sdk-errors.js';
import { ArchiveClaim, DEFAULT_CLAIM_MS, takeArchiveClaim, type ClaimTarget } from './archive-claim.js';

/** The steps of an archive after reading META, in order; `afterStep` is called after each. */
export type ArchiveStep = 'uploaded' | 'verified' | 'marked' | 'purged' | 'finished';

/** Why a session was left as it was. */
export type ArchiveSkipReason =
  /** No such session any more, or it is being deleted, or its TTL has passed. */
  | 'gone'
  /** Written (or restored) since the cutoff. */
  | 'active'
  /** Written to, leased, archived or deleted by someone else while this sweeper worked. */
  | 'changed'
  /** Already archived whole; or another sweeper or a restore holds its claim. */
  | 'claimed';

export type ArchiveOutcome =
  | { sessionId: string; result: 'archived'; entries: number; bytes: number; reused: boolean }
  | { sessionId: string; result: 'finished' }
  | { sessionId: string; result: 'skipped'; reason: ArchiveSkipReason };

export interface ArchiveSessionOptions extends GarbageCollection {
  client: DynamoDBClient;
  tableName: string;
  /**
   * The bucket archives go to (`archive/<sessionId>/…`), with the client that writes them
   * and reads the session's offloaded texts. (`prefix` is not used for archives.)
   */
  s3: S3Location;
  sessionId: string;
  /** The session is archived only if its last write (or restore) is before this instant. */
  cutoff: Date;
  /** How long the archive claim holds unless renewed (default 60 s). */
  claimMs?: number;
  clock?: () => Date;
  /**
   * Called after each step; a rejection stops the archive right there, as a failure would
   * (which gives the claim up; a crash leaves it to lapse). A seam for tests of crash
   * safety: leave it out otherwise.
   */
  afterStep?: (step: ArchiveStep) => Promise<void> | void;
}

/**
 * Archives one session if it is cold, or finishes an archive an earlier sweep left half done:
 *
 * 1. read META (consistent); a session written since `cutoff`, gone or expired is left alone;
 * 2. stream its JSONL — what an export writes — to `archive/<sessionId>/<time>-<n>-entries.jsonl`
 *    (multipart, flat memory), hashing it, and read it back to check length and SHA-256 (an
 *    archive of exactly these entries that a restore left is reused instead);
 * 3. one conditional UpdateItem marks META archived — only if the session is still this
 *    owner's, hot, not leased, and at the head and count it read — and takes the claim;
 * 4. under the claim, the offloaded texts and then the entry items are deleted (transactions
 *    that check the claim first);
 * 5. META leaves the `byActivity` index and gives the claim up; older archive objects of the
 *    session are deleted.
 *
 * A session whose META is archived but still indexed (a sweeper died after step 3) gets
 * steps 4–5. A session someone else changed meanwhile is a `skipped` outcome, not an error;
 * S3 and DynamoDB errors are rethrown untouched.
 *
 * @example
 * const outcome = await archiveSession({ client, tableName, s3: { client: s3, bucket }, sessionId, cutoff: new Date(Date.now() - 30 * 86_400_000) });
 */
export async function archiveSession(options: ArchiveSessionOptions): Promise<ArchiveOutcome> {
  const { client, tableName, s3, sessionId } = options;
  const clock = options.clock ?? systemClock;
  const afterStep = options.afterStep ?? (() => undefined);
  const target: ClaimTarget = { client, tableName, sessionId, claimMs: options.claimMs ?? DEFAULT_CLAIM_MS, clock };
  const skipped = (reason: ArchiveSkipReason): ArchiveOutcome => ({ sessionId, result: 'skipped', reason });

  const meta = await readMeta(client, tableName, sessionId);
  const now = clock();
  if (meta === null || meta.deletedAt !== null || isExpired(meta, now.getTime())) return skipped('gone');
  if (meta.archivedAt !== null) {
    // Archived, but its items may still be there: a sweeper died after marking it.
    if (!meta.activityIndexed) return skipped('claimed');
    const taken = await takeArchiveClaim({ ...target, owner: meta.metadata.owner });
    if (taken.claim === null) return skipped('claimed');
    const held = await underClaim(taken.claim, async (claim) => {
      await removeItems(s3, claim, afterStep);
      await finish(s3, sessionId, claim, taken.meta.archive!, afterStep);
    });
    return held ? { sessionId, result: 'finished' } : skipped('changed');
  }
  if (lastActivity(meta) >= options.cutoff.toISOString()) return skipped('active');

  const reused = await reusableArchive(s3, meta);
  let object: ArchiveObject;
  try {
    object = reused ?? (await writeArchive(options, meta, now, afterStep));
  } catch (error) {
    // Items vanishing under the read: another sweeper archived it (or a delete began) meanwhile.
    const again = await readMeta(client, tableName, sessionId);
    if (again === null || again.archivedAt !== null || again.deletedAt !== null) return skipped('changed');
    throw error;
  }

  const claim = await markArchived(target, meta, object);
  if (claim === null) {
    if (reused === null) await dropLostArchive(options, object);
    return skipped('changed');
  }
  const held = await underClaim(claim, async (current) => {
    await afterStep('marked');
    await removeItems(s3, current, afterStep);
    await finish(s3, sessionId, current, object, afterStep);
  });
  if (!held) return skipped('changed');
  return { sessionId, result: 'archived', entries: object.entryCount, bytes: object.bytes, reused: reused !== null };
}

/**
 * Deletes the object an archive that lost its mark wrote — unless META names it: a sweeper
 * that read the same META in the same millisecond wrote the same key and won, and that object
 * is now the session's only copy. Best effort: an object left behind is only a stray file.
 */
async function dropLostArchive(options: ArchiveSessionOptions, object: ArchiveObject): Promise<void> {
  // Unreadable META: keep the object (undefined returns below) — deleting a copy META may name is the one thing not to risk.
  const current = await readMeta(options.client, options.tableName, options.sessionId).catch(() => undefined);
  if (current === undefined || (current?.archive?.bucket === object.bucket && current.archive.key === object.key)) return;
  // Best effort, as above: an object not deleted is a stray file, never a lost session.
  await options.s3.client.send(new DeleteObjectCommand({ Bucket: object.bucket, Key: object.key })).catch(() => undefined);
}

/**
 * Steps 4–5 under the claim. False when the claim was lost to someone else (a delete, a
 * restore): the designed outcome of that race, which leaves the session to them. On any
 * other failure the claim is given up (a restore need not wait for it to lapse: it removes
 * what items are left itself) and the error rethrown.
 */
async function underClaim(claim: ArchiveClaim, work: (claim: ArchiveClaim) => Promise<void>): Promise<boolean> {
  try {
    await work(claim);
    return true;
  } catch (error) {
    await claim.release();
    if (error instanceof ArchiveClaimLostError) return false;
    throw error;
  }
}

/**
 * The archive a restore left, if it holds exactly META's entries and is still there (a HEAD:
 * it was verified when written): archiving the same entries again needs no upload.
 */
async function reusableArchive(s3: S3Location, meta: MetaRecord): Promise<ArchiveObject | null> {
  const archive = meta.archive;
  if (archive === null || archive.bucket !== s3.bucket) return null;
  if (archive.entryCount !== meta.metadata.entryCount || archive.head !== meta.metadata.head) return null;
  try {
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: archive.bucket, Key: archive.key }));
    return head.ContentLength === archive.bytes ? archive : null;
  } catch (error) {
    if (sdkErrorName(error) === 'NotFound' || sdkErrorName(error) === 'NoSuchKey') return null;
    throw error;
  }
}

/** Steps 2: the JSONL to a new object, hashed as it goes, then read back and checked. */
async function writeArchive(
  options: ArchiveSessionOptions,
  meta: MetaRecord,
  now: Date,
  afterStep: (step: ArchiveStep) => Promise<void> | void,
): Promise<ArchiveObject> {
  const { client, tableName, s3, sessionId } = options;
  const entries = meta.metadata.entryCount;
  const key = archiveKey(sessionId, now, entries);
  const hash = createHash('sha256');
  const writer = await uploadSessionLines({
    dynamo: client,
    s3: s3.client,
    tableName,
    sessionId,
    header: meta.header,
    entries,
    bucket: s3.bucket,
    key,
    onChunk: (chunk) => hash.update(chunk),
    ...(options.collectGarbage === undefined ? {} : { collectGarbage: options.collectGarbage }),
  });
  const object: ArchiveObject = {
    bucket: s3.bucket,
    key,
    bytes: writer.bytes,
    sha256: hash.digest('hex'),
    entryCount: entries,
    head: meta.metadata.head,
  };
  await afterStep('uploaded');
  await verifyObject(s3, object);
  await afterStep('verified');
  return object;
}

/** Reads the object back whole, streaming: its length and SHA-256 must be what was written. */
async function verifyObject(s3: S3Location, object: ArchiveObject): Promise<void> {
  const response = await s3.client.send(new GetObjectCommand({ Bucket: object.bucket, Key: object.key }));
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of (response.Body ?? []) as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  if (bytes !== object.bytes || hash.digest('hex') !== object.sha256) {
    throw new SessionCorruptError(
      `s3://${object.bucket}/${object.key}`,
      1,
      `the archive read back (${bytes} bytes) is not what was written (${object.bytes} bytes)`,
    );
  }
}

/** Step 3: META archived, on exactly the state the archive holds; the claim, or null if the session changed. */
async function markArchived(target: ClaimTarget, meta: MetaRecord, object: ArchiveObject): Promise<ArchiveClaim | null> {
  const { client, tableName, sessionId } = target;
  const clock = target.clock ?? systemClock;
  const claimMs = target.claimMs ?? DEFAULT_CLAIM_MS;
  const { head, entryCount, owner } = meta.metadata;
  let condition = head === null ? ARCHIVE_CONDITION_EMPTY : ARCHIVE_CONDITION;
  let update = ARCHIVE_UPDATE;
  const now = clock().getTime();
  const claimId = randomUUID();
  const values: Record<string, AttributeValue> = {
    ':owner': { S: owner },
    ':expected_count': { N: String(entryCount) },
    ':now': { N: String(now) },
    ':archived_at': { S: new Date(now).toISOString() },
    ':archive_bucket': { S: object.bucket },
    ':archive_key': { S: object.key },
    ':archive_bytes': { N: String(object.bytes) },
    ':archive_sha256': { S: object.sha256 },
    ':claim_id': { S: claimId },
    ':claim_expires_at': { N: String(now + claimMs) },
  };
  if (head !== null) {
    values[':expected_head'] = { S: head };
    update += ARCHIVE_UPDATE_HEAD;
  }
  if (meta.incarnation !== null) {
    condition += ARCHIVE_CONDITION_INCARNATION;
    values[':incarnation'] = { S: meta.incarnation };
  }
  try {
    await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: namesFor(update, condition),
        ExpressionAttributeValues: values,
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) return null;
    throw error;
  }
  return new ArchiveClaim(target, claimId, now);
}

/**
 * Step 4: the offloaded texts the items point at, then the items, under the claim. Objects
 * first, so a rerun after a failure still finds the items that name them. A restore writes
 * its offloaded texts under keys of its own, so these deletes never touch a restored item's.
 */
async function removeItems(s3: S3Location, claim: ArchiveClaim, afterStep: (step: ArchiveStep) => Promise<void> | void): Promise<void> {
  const partition = await readPartition(claim.client, claim.tableName, claim.sessionId);
  await claim.renewIfDue();
  await deleteObjects(s3.client, partition.refs);
  for (const key of partition.keys) await claim.delete(key);
  await claim.flush();
  await afterStep('purged');
}

/** Step 5: out of the index, claim given up; then older archives of the session go (best effort). */
async function finish(
  s3: S3Location,
  sessionId: string,
  claim: ArchiveClaim,
  object: ArchiveObject,
  afterStep: (step: ArchiveStep) => Promise<void> | void,
): Promise<void> {
  await claim.finish(ARCHIVE_FINISH_UPDATE, {});
  await afterStep('finished');
  if (object.bucket === s3.bucket) {
    // Older archives of the session are strays now (META names the new one): best effort, the sweep is done.
    await deletePrefix(s3.client, s3.bucket, archivePrefix(sessionId), new Set([object.key])).catch(() => undefined);
  }
}
