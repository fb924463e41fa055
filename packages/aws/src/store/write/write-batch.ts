/**
 * A handle's write: a chained batch or a leaf entry, its oversized texts offloaded to S3
 * first, then one conditional transaction (append-transaction.ts); the handle's view and the cache
 * follow what was committed.
 */
import { randomUUID } from 'node:crypto';
import { type ActiveModel, SessionNotFoundError, type SessionEntry, encodeBatchLines, newestModel } from '@panto/core/store-kit';
import type { OffloadRef } from '../../entries/entry-item.js';
import { putOffload } from '../../entries/offload.js';
import { packBatch, TRANSACTION_TEXT_LIMIT, type PlannedItem } from '../../entries/pack-batch.js';
import { OffloadRequiredError } from '../../errors.js';
import { DynamoLease } from '../../lease/session-lease.js';
import { expiryOf, type HeldLease } from '../../meta/meta-item.js';
import { firstTitle } from '../../meta/title.js';
import { deleteObjects } from '../../s3/s3-objects.js';
import type { AppendExtras } from './transaction-extras.js';
import { type LeaseTaken, sendAppend } from './append-transaction.js';
import type { Handle, SessionView } from '../handle.js';

/**
 * Appends `entries` (chained by the view's log) as one conditional transaction, and returns
 * the view after it: the log committed in place, META as the append left it. `extras` go in
 * the same transaction (see transaction-extras.ts). Rejects as `sendAppend` does; texts it offloaded for a session found gone are deleted again.
 */
export async function appendEntries(
  handle: Handle,
  sessionId: string,
  view: SessionView,
  entries: readonly SessionEntry[],
  last = false,
  extras: AppendExtras | null = null,
): Promise<SessionView> {
  const { turn } = handle;
  if (turn === null) return appendWritten(handle, sessionId, view, entries, last, extras);
  // No partial answer is written while the append runs, and none in flight lands after it.
  turn.appending = true;
  try {
    await turn.partialWrites;
    const after = await appendWritten(handle, sessionId, view, entries, last, extras);
    turn.partialStored = false;
    return after;
  } finally {
    turn.appending = false;
  }
}

async function appendWritten(
  handle: Handle,
  sessionId: string,
  view: SessionView,
  entries: readonly SessionEntry[],
  last: boolean,
  extras: AppendExtras | null,
): Promise<SessionView> {
  const { log, meta } = view;
  const head = log.headAfter(entries);
  // META's model: the one a batch names (if any), or the switched-to path's.
  const activeModel = entries[0]?.type === 'leaf' ? head.activeModel : newestModel(entries);
  const expected = { head: log.leafId, count: log.count };
  const lines = encodeBatchLines(entries);
  const planned = packBatch(lines, expected.count);
  const refs = await offload(handle, sessionId, planned);
  const now = handle.clock();
  const updatedAt = now.toISOString();
  const title = meta.metadata.title === null ? firstTitle(entries) : null;
  const lease = leaseChange(handle, now, last, meta.metadata.activeModel);
  await sendAppend(
    handle.client,
    {
      tableName: handle.tableName,
      sessionId,
      owner: handle.owner,
      expected,
      entries,
      resumeParent: head.resumeParent,
      items: planned.map((item, i) => ({ planned: item, ref: refs[i] ?? null })),
      updatedAt,
      activeModel,
      title,
      expiresAt: expiryOf(meta.ttlSeconds, now),
      leaseId: handle.leaseId,
      takeLease: lease.take,
      releaseLease: lease.release,
      deletePartial: handle.turn?.partialStored ?? false,
      ...(extras === null ? {} : { extraWrites: extras.writes, onExtraRefused: (refusals) => extras.refused(refusals) }),
    },
    randomUUID(),
    handle.retry,
  ).catch(async (error: unknown) => {
    if (error instanceof SessionNotFoundError) await discardOffloads(handle, refs);
    throw error;
  });
  log.commit(entries);
  const after: SessionView = {
    log,
    metaFresh: false,
    bytes: view.bytes,
    meta: {
      ...meta,
      nextParent: head.resumeParent,
      lease: leaseAfter(handle, sessionId, meta.lease, lease, expected.count),
      metadata: {
        ...meta.metadata,
        entryCount: log.count,
        head: log.leafId,
        updatedAt: lease.take === null ? updatedAt : meta.metadata.updatedAt,
        title: meta.metadata.title ?? title,
        activeModel: activeModel ?? meta.metadata.activeModel,
      },
    },
  };
  const appended = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
  return { ...after, bytes: cacheAppended(handle, sessionId, after, expected.count, entries, appended) };
}

/** What an append does to a turn's lease: takes it (the turn's first write) or gives it up (its last). */
interface LeaseChange {
  take: LeaseTaken | null;
  release: boolean;
}

function leaseChange(handle: Handle, now: Date, last: boolean, seenModel: ActiveModel | null): LeaseChange {
  const { turn } = handle;
  if (turn === null || turn.released) return { take: null, release: false };
  if (turn.lease === null) {
    return { take: { leaseId: turn.leaseId, expiresAt: now.getTime() + turn.leaseMs, now: now.getTime(), seenModel }, release: false };
  }
  return { take: null, release: last };
}

/** The lease META holds after a committed append, as the handle knows it; the handle's turn state follows. */
function leaseAfter(handle: Handle, sessionId: string, before: HeldLease | null, change: LeaseChange, count: number): HeldLease | null {
  const { turn } = handle;
  if (turn === null) return before;
  if (change.take !== null) {
    const { leaseId, expiresAt, now } = change.take;
    handle.leaseId = leaseId;
    const { client, tableName, owner } = handle;
    turn.lease = new DynamoLease({ client, tableName, owner, sessionId, leaseId, expiresAt, leaseMs: turn.leaseMs, now: () => handle.clock().getTime() });
    return { leaseId, expiresAt, startedAt: now, firstEntry: count, stopRequested: false };
  }
  if (!change.release) return before;
  turn.released = true;
  turn.onReleased?.();
  return null;
}

/** Writes the offloaded items' text to S3 (in parallel), before the transaction. */
async function offload(handle: Handle, sessionId: string, planned: readonly PlannedItem[]): Promise<Array<OffloadRef | null>> {
  const offloaded = planned.filter((item) => item.offload);
  if (offloaded.length === 0) return planned.map(() => null);
  const s3 = handle.s3;
  if (s3 === undefined) {
    const bytes = offloaded.reduce((sum, item) => sum + item.bytes, 0);
    const total = planned.reduce((sum, item) => sum + item.bytes, 0);
    const single = offloaded.length === 1 && offloaded[0]!.count === 1;
    throw new OffloadRequiredError(
      sessionId,
      bytes,
      single
        ? `a message of ${offloaded[0]!.bytes} bytes is over the DynamoDB item limit; nothing was written`
        : `a batch of ${total} bytes is over what one DynamoDB transaction holds (${TRANSACTION_TEXT_LIMIT} bytes inline); nothing was written`,
    );
  }
  return Promise.all(planned.map((item) => (item.offload ? putOffload(s3, sessionId, item.text) : null)));
}

/**
 * Deletes the texts an append wrote to S3 before its transaction found the session gone
 * (deleted, or being deleted): a delete that listed the session's objects before they
 * were written cannot have seen them. Keys hold the SHA-256 of lines carrying fresh entry
 * ids, so no committed item points at them. Best effort: the append's own error is what
 * the caller must see; an object this misses stays under the session's offload prefix.
 */
async function discardOffloads(handle: Handle, refs: ReadonlyArray<OffloadRef | null>): Promise<void> {
  const written = refs.filter((ref): ref is OffloadRef => ref !== null);
  if (handle.s3 === undefined || written.length === 0) return;
  // Texts no committed entry names: best effort, a leftover is only a stray object.
  await deleteObjects(handle.s3.client, written).catch(() => undefined);
}

/**
 * Keeps the cache in step with an append (of `bytes`) after the first `before` entries; returns
 * the bytes the view's log now holds (when it holds its entries).
 */
function cacheAppended(handle: Handle, sessionId: string, view: SessionView, before: number, entries: readonly SessionEntry[], bytes: number): number {
  const { cache } = handle;
  const { incarnation } = view.meta;
  if (cache === undefined || incarnation === null) return view.bytes;
  const held = view.log.entries;
  const { meta } = view;
  if (held !== null) {
    // The log's path, extended by this append (or none, when it could not be): the next turn starts from it.
    const built = view.log.built();
    cache.set(sessionId, { incarnation, entries: [...held], bytes: view.bytes + bytes, meta, ...(built === null ? {} : { built }) });
    return view.bytes + bytes;
  }
  const cached = cache.get(sessionId);
  if (cached?.incarnation === incarnation && cached.entries.length === before) {
    cache.set(sessionId, { incarnation, entries: [...cached.entries, ...entries], bytes: cached.bytes + bytes, meta });
  } else {
    cache.delete(sessionId);
  }
  return view.bytes;
}
