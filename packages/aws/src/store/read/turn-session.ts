/**
 * A handle for a turn: no request at all when this process's cache knows the session (META
 * as it last read or wrote it, and every entry), else the one read the turn needs (META and
 * the entries, one Query). The lease is not taken here: the turn's first append takes it in
 * its own transaction, conditioned on no other lease and on the head read here — so a cache
 * that is behind costs a refused write (`SessionConflictError`, nothing written), never a
 * wrong one.
 */
import { randomUUID } from 'node:crypto';
import { SessionNotFoundError, SessionLog } from '@panto/core/store-kit';
import { SessionBusyError } from '../../errors.js';
import { metaSource } from '../../meta/meta-item.js';
import { isLive, isVisibleTo } from '../../meta/visibility.js';
import { assertValidOwner, isValidSessionId } from '../../table/validation.js';
import { handleOf, type Handle, type SessionView } from '../handle.js';
import { readPastCache } from './read-entries.js';
import type { DynamoStoreTurnOptions } from '../store-options.js';

export async function openForTurn(options: DynamoStoreTurnOptions): Promise<{ handle: Handle; view: SessionView }> {
  assertValidOwner(options.owner);
  const { sessionId, owner, leaseMs } = options;
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  if (!(Number.isInteger(leaseMs) && leaseMs > 0)) throw new RangeError('leaseMs must be a positive integer');
  const turn = {
    leaseMs,
    leaseId: randomUUID(),
    lease: null,
    released: false,
    onReleased: options.onLeaseReleased,
    partialWrites: Promise.resolve(),
    partialStored: false,
    appending: false,
  };
  const handle: Handle = { ...handleOf(options), turn };
  const source = metaSource(options.tableName, sessionId);
  const now = handle.clock().getTime();
  const cached = options.cache?.get(sessionId);
  // Known here, as this owner's hot session: trusted until the first append's condition says otherwise.
  if (cached?.meta !== undefined && cached.meta.archivedAt === null && isVisibleTo(cached.meta, owner, now)) {
    // The conversation as the last turn left it: extended by its appends, not rebuilt from the root.
    const log = SessionLog.of([...cached.entries], source, cached.built);
    if (cached.built === undefined) options.cache?.keepBuilt(sessionId, cached.incarnation, log.built());
    return { handle, view: { meta: cached.meta, log, bytes: cached.bytes, metaFresh: true } };
  }
  const { meta, entries, bytes } = await readPastCache(handle, sessionId, null);
  // Another turn runs: refused before anything is written or sent.
  if (isLive(meta.lease, now)) throw new SessionBusyError(sessionId, meta.lease!.expiresAt);
  const log = SessionLog.of([...entries], source);
  if (options.cache !== undefined && meta.incarnation !== null) {
    const built = log.built();
    options.cache.set(sessionId, { incarnation: meta.incarnation, entries, bytes, meta, ...(built === null ? {} : { built }) });
  }
  return { handle, view: { meta, log, bytes, metaFresh: true } };
}
