/** Taking a session's turn lease: one conditional UpdateItem on its META item (see session-lease.ts). */
import { randomUUID } from 'node:crypto';
import { UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core/store-kit';
import { SessionBusyError } from '../errors.js';
import { decodeMeta, metaSource, type MetaRecord } from '../meta/meta-item.js';
import { isOwnersItem } from '../meta/visibility.js';
import { ATTR } from '../table/attributes.js';
import { LEASE_ACQUIRE_CONDITION, LEASE_ACQUIRE_UPDATE, namesFor } from '../table/expressions.js';
import { metaKey } from '../table/keys.js';
import { conditionFailedItem, isConditionalCheckFailed, updatedItem } from '../table/sdk-errors.js';
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
  let attributes: Record<string, AttributeValue> | undefined;
  try {
    ({ Attributes: attributes } = await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        UpdateExpression: LEASE_ACQUIRE_UPDATE,
        ConditionExpression: LEASE_ACQUIRE_CONDITION,
        ExpressionAttributeNames: namesFor(LEASE_ACQUIRE_UPDATE, LEASE_ACQUIRE_CONDITION),
        ExpressionAttributeValues: {
          ':owner': { S: owner },
          ':now': { N: String(now) },
          ':lease_id': { S: leaseId },
          ':lease_expires_at': { N: String(now + leaseMs) },
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const old = conditionFailedItem(error);
    // Missing, another owner's, or a tombstone (being deleted): not found, whatever its lease says.
    if (!isOwnersItem(old, owner)) throw new SessionNotFoundError(sessionId, { cause: error });
    const held = Number(old[ATTR.leaseExpiresAt]?.N ?? Number.NaN);
    throw new SessionBusyError(sessionId, Number.isFinite(held) ? held : null, { cause: error });
  }
  const meta = decodeMeta(updatedItem(attributes), metaSource(tableName, sessionId));
  const lease = new DynamoLease({ client, tableName, owner, sessionId, leaseId, expiresAt: now + leaseMs, leaseMs, now: clock });
  return { lease, meta };
}
