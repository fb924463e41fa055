/** Taking a session's turn lease: one conditional UpdateItem on its META item (see session-lease.ts). */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core/store-kit';
import { SessionBusyError } from '../errors.js';
import type { MetaRecord } from '../meta/meta-item.js';
import { updateMeta } from '../meta/update-meta.js';
import { isOwnersItem } from '../meta/visibility.js';
import { ATTR } from '../table/attributes.js';
import { LEASE_ACQUIRE_CONDITION, LEASE_ACQUIRE_UPDATE } from '../table/expressions.js';
import { assertValidOwner, isValidSessionId } from '../table/validation.js';
import { DynamoLease, type SessionLease } from './session-lease.js';

export interface AcquireSessionLeaseOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  /** How long the lease holds unless renewed or released, in milliseconds. */
  leaseMs: number;
  /** Epoch milliseconds now (default `Date.now`); acquiring and renewing judge expiry by it. */
  now?: () => number;
}

/**
 * Takes the session's turn lease with one conditional UpdateItem on its META item.
 * `SessionBusyError` while another unexpired lease holds; `SessionNotFoundError` for a
 * missing session, another owner's, or one being deleted.
 *
 * @example
 * const lease = await acquireSessionLease({ client, tableName, owner, sessionId, leaseMs: 30_000 });
 * const heartbeat = keepSessionLease(lease, { renewEveryMs: 10_000 });
 * try { await runTurn({ signal: heartbeat.signal }); } finally { await heartbeat.stop(); await lease.release(); }
 */
export async function acquireSessionLease(options: AcquireSessionLeaseOptions): Promise<SessionLease> {
  return (await takeSessionLease(options)).lease;
}

/**
 * {@link acquireSessionLease}, also returning the META item as the lease left it (the same
 * UpdateItem returns it): a consistent read of the session's head for free.
 */
export async function takeSessionLease(options: AcquireSessionLeaseOptions): Promise<{ lease: SessionLease; meta: MetaRecord }> {
  const { client, tableName, owner, sessionId, leaseMs } = options;
  assertValidOwner(owner);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  if (!(Number.isInteger(leaseMs) && leaseMs > 0)) throw new RangeError('leaseMs must be a positive integer');
  const clock = options.now ?? Date.now;
  const now = clock();
  const leaseId = randomUUID();
  const meta = await updateMeta({
    client,
    tableName,
    sessionId,
    update: LEASE_ACQUIRE_UPDATE,
    condition: LEASE_ACQUIRE_CONDITION,
    values: {
      ':owner': { S: owner },
      ':now': { N: String(now) },
      ':lease_id': { S: leaseId },
      ':lease_expires_at': { N: String(now + leaseMs) },
    },
    refused: (old, cause) => {
      // Missing, another owner's, or a tombstone (being deleted): not found, whatever its lease says.
      if (!isOwnersItem(old, owner)) return new SessionNotFoundError(sessionId, { cause });
      const held = Number(old[ATTR.leaseExpiresAt]?.N ?? Number.NaN);
      return new SessionBusyError(sessionId, Number.isFinite(held) ? held : null, { cause });
    },
  });
  const lease = new DynamoLease({ client, tableName, owner, sessionId, leaseId, expiresAt: now + leaseMs, leaseMs, now: clock });
  return { lease, meta };
}
