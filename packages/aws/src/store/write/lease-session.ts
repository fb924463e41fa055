/** Taking a session for a turn: its turn lease and a handle that appends under it. */
import { SessionNotFoundError } from '@panto/core/store-kit';
import { takeSessionLease } from '../../lease/acquire-session-lease.js';
import type { SessionLease } from '../../lease/session-lease.js';
import type { MetaRecord } from '../../meta/meta-item.js';
import { isVisibleTo } from '../../meta/visibility.js';
import { handleOf, restoreIfArchived, type Handle } from '../handle.js';
import type { DynamoStoreLeaseOptions } from '../store-options.js';

/**
 * Takes the lease (one conditional UpdateItem, which returns META), proves the owner may
 * see the session — else gives the lease back and refuses with `SessionNotFoundError` — and
 * restores an archived session under the lease. The handle's appends are fenced by it.
 */
export async function leaseSession(options: DynamoStoreLeaseOptions): Promise<{ handle: Handle; meta: MetaRecord; lease: SessionLease }> {
  const base = handleOf(options);
  const { lease, meta } = await takeSessionLease({
    client: options.client,
    tableName: options.tableName,
    owner: options.owner,
    sessionId: options.sessionId,
    leaseMs: options.leaseMs,
    now: () => base.clock().getTime(),
  });
  const handle: Handle = { ...base, leaseId: lease.leaseId };
  if (!isVisibleTo(meta, options.owner, handle.clock().getTime())) {
    await lease.release();
    throw new SessionNotFoundError(options.sessionId);
  }
  // Holding the lease, so no sweeper archives it again meanwhile.
  const hot = await restoreIfArchived(handle, options.sessionId, meta).catch(async (error: unknown) => {
    // The restore's failure is what the caller must see (rethrown below); an unreleased lease lapses on its own.
    await lease.release().catch(() => undefined);
    throw error;
  });
  return { handle, meta: hot, lease };
}
