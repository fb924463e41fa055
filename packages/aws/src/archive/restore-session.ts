/**
 * Restoring an archived session: its archive streamed from S3 through core's
 * `SessionDecoder` back into entry items — the same ids, the same bytes — and META made hot
 * again, keeping its incarnation (the entries did not change, so what a process cached stays
 * true). Opening the session does this (`DynamoStore.open`, `DynamoStore.lease`, a load, an
 * export): a restored session answers as if it had never left. See docs/aws.md, "Restore".
 */
import { createHash } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { SessionCorruptError, SessionNotFoundError, systemClock, SessionDecoder } from '@panto/core/store-kit';
import { entryItem } from '../entries/entry-item.js';
import { ItemPacker } from '../entries/item-packer.js';
import { offloadPrefix, putOffload, type S3Location } from '../entries/offload.js';
import { ArchiveClaimLostError, OffloadRequiredError, SessionRestoringError } from '../errors.js';
import { readMeta, type ArchiveObject, type MetaRecord } from '../meta/meta-item.js';
import { isVisibleTo } from '../meta/visibility.js';
import { deleteObjects, deletePrefix } from '../s3/s3-objects.js';
import { readPartition } from '../sessions/read-partition.js';
import { RESTORE_FINISH_UPDATE } from '../table/expressions.js';
import { activityPk, activitySk, entrySk, sessionPk } from '../table/keys.js';
import { assertValidOwner, isValidSessionId } from '../table/validation.js';
import { takeArchiveClaim, type ArchiveClaim } from './archive-claim.js';

/** How long a request waits for another to finish restoring (or archiving) a session before it gives up. */
export const DEFAULT_RESTORE_WAIT_MS = 20_000;

export interface RestoreSessionOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  /**
   * Reads the archive (the bucket is the one META names), and takes entry lines too big for
   * an item (`offload/<sessionId>/restored-<claim>/`).
   */
  s3?: S3Location | undefined;
  /** How long to wait while another request restores it, or a sweeper finishes archiving it (default 20 s). */
  waitMs?: number;
  /** How long this restore's claim holds unless renewed (default 60 s; every write renews it). */
  claimMs?: number;
  clock?: () => Date;
}

/**
 * Brings an archived session of `owner` back into the table, if it is archived; resolves with
 * whether this call restored it. Two callers at once restore it once: the other waits (at
 * most `waitMs`, then `SessionRestoringError`) and resolves `false`. `SessionNotFoundError`
 * as for `DynamoStore.open`; `OffloadRequiredError` without `s3`; `SessionCorruptError` if
 * the archive is not what META says it is (nothing is changed then).
 *
 * @example
 * await restoreSession({ client, tableName, owner, sessionId, s3: { client: s3, bucket } });
 */
export async function restoreSession(options: RestoreSessionOptions): Promise<{ restored: boolean }> {
  assertValidOwner(options.owner);
  if (!isValidSessionId(options.sessionId)) throw new SessionNotFoundError(String(options.sessionId));
  const meta = await readMeta(options.client, options.tableName, options.sessionId);
  let restored = false;
  await ensureRestored(options, meta, () => (restored = true));
  return { restored };
}

/**
 * META as it is once the session is hot: `meta` itself when it is not archived, else after
 * restoring it (or waiting for whoever is). `onRestored` is called if this call restored it.
 */
export async function ensureRestored(options: RestoreSessionOptions, meta: MetaRecord | null, onRestored?: () => void): Promise<MetaRecord> {
  const { client, tableName, owner, sessionId } = options;
  const clock = options.clock ?? systemClock;
  const deadline = clock().getTime() + (options.waitMs ?? DEFAULT_RESTORE_WAIT_MS);
  let current = meta;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    const now = clock().getTime();
    if (!isVisibleTo(current, owner, now)) throw new SessionNotFoundError(sessionId);
    if (current.archivedAt === null) return current;
    const s3 = options.s3;
    if (s3 === undefined) throw new OffloadRequiredError(sessionId, current.archive?.bytes ?? 0, 'the session is archived to S3');
    if (current.archiveClaim === null || current.archiveClaim.expiresAt <= now) {
      const taken = await takeArchiveClaim({
        client,
        tableName,
        sessionId,
        owner,
        clock,
        ...(options.claimMs === undefined ? {} : { claimMs: options.claimMs }),
      });
      if (taken.claim !== null) {
        try {
          const restored = await restoreClaimed(s3, taken.meta, taken.claim, clock);
          onRestored?.();
          return restored;
        } catch (error) {
          if (!(error instanceof ArchiveClaimLostError)) {
            // Failed (S3, DynamoDB, a corrupt archive): let the next request try at once.
            await taken.claim.release();
            throw error;
          }
          // Our claim lapsed and another request took over, or a delete began: see which.
          current = await readMeta(client, tableName, sessionId);
          if (current === null || current.deletedAt !== null) {
            // Our half-restored texts, which nothing names: best effort, a leftover is only a stray file.
            await deletePrefix(s3.client, s3.bucket, `${offloadPrefix(s3, sessionId)}${restoreNamespace(taken.claim)}/`).catch(() => undefined);
          }
          continue;
        }
      }
      current = taken.meta;
      if (current?.archiveClaim == null || current.archivedAt === null) continue; // it changed under us: look again
    }
    if (now >= deadline) throw new SessionRestoringError(sessionId);
    await new Promise((resolve) => setTimeout(resolve, delay));
    current = await readMeta(client, tableName, sessionId);
  }
}

/** Offloaded texts of a restore go under a namespace of its own (see `putOffload`). */
function restoreNamespace(claim: ArchiveClaim): string {
  return `restored-${claim.claimId}`;
}

/**
 * The restore proper, under the claim: whatever entry items are left (of the session before
 * it was archived, if its sweeper died before removing them, or of a restore that died) are
 * deleted; the archive is streamed, checked and decoded batch by batch, each batch packed into
 * items of its own (an item boundary at every batch end, as an append leaves it, so a process
 * that cached the first N entries can read on from `E#N`); then META is hot again.
 */
async function restoreClaimed(s3: S3Location, meta: MetaRecord, claim: ArchiveClaim, clock: () => Date): Promise<MetaRecord> {
  const archive = meta.archive!;
  const { sessionId } = claim;
  const leftovers = await readPartition(claim.client, claim.tableName, sessionId);
  await claim.renewIfDue();
  await deleteObjects(s3.client, leftovers.refs);
  for (const key of leftovers.keys) await claim.delete(key);
  await claim.flush();

  const source = `s3://${archive.bucket}/${archive.key}`;
  const response = await s3.client.send(new GetObjectCommand({ Bucket: archive.bucket, Key: archive.key }));
  const pk = sessionPk(sessionId);
  const packer = new ItemPacker(async (item) => {
    const ref = item.offload ? await putOffload(s3, sessionId, item.text, restoreNamespace(claim)) : null;
    await claim.put(entryItem({ pk, sk: entrySk(item.index) }, item, ref), ref === null ? item.bytes : 0);
  });
  const decoder = new SessionDecoder(source);
  for await (const batch of decoder.decode(checked((response.Body ?? []) as AsyncIterable<Uint8Array>, archive, source))) {
    const { lines, firstLine } = batch;
    for (let i = 0; i < lines.length; i++) await packer.add(lines[i]!, firstLine + i, i === lines.length - 1);
    await packer.flush();
  }
  // The bytes are the ones archived (length and SHA-256, checked as they streamed); this
  // checks they are this session's, whole. (META's head is not compared with the last
  // line: which entry is the head is META's to say, and it did not change.)
  const end = decoder.end();
  if (end.header.id !== sessionId || end.entryCount !== archive.entryCount || end.torn || end.uncommittedLines > 0) {
    throw new SessionCorruptError(source, 1, `the archive does not hold the session META describes (${archive.entryCount} entries)`);
  }
  const restoredAt = clock().toISOString();
  return claim.finish(RESTORE_FINISH_UPDATE, {
    ':gsi2pk': { S: activityPk(sessionId) },
    ':gsi2sk': { S: activitySk(restoredAt, sessionId) },
    ':restored_at': { S: restoredAt },
  });
}

/**
 * The archive's bytes as they stream by, counted and hashed: past its length, or at its end
 * with another length or SHA-256, a `SessionCorruptError` — before anything it held is
 * made visible (META is only switched after the whole stream checked out).
 */
async function* checked(body: AsyncIterable<Uint8Array>, archive: ArchiveObject, source: string): AsyncGenerator<Uint8Array> {
  const hash = createHash('sha256');
  let bytes = 0;
  const mismatch = (): SessionCorruptError => new SessionCorruptError(source, 1, 'the archive does not match its length and SHA-256');
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > archive.bytes) throw mismatch();
    hash.update(chunk);
    yield chunk;
  }
  if (bytes !== archive.bytes || hash.digest('hex') !== archive.sha256) throw mismatch();
}
