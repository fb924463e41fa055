/**
 * The turn lease: at most one request runs a turn on a session at a time. The HTTP
 * service takes it before a turn and releases it after; it expires on its own if the
 * holder dies. Appends do not check it — their head condition already refuses a stale
 * writer; the lease keeps two turns from racing to that point.
 */
import { randomUUID } from 'node:crypto';
import { UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core';
import { SessionBusyError } from './errors.js';
import { decodeMeta, type MetaRecord } from './metadata.js';
import {
  LEASE_ACQUIRE_CONDITION,
  LEASE_ACQUIRE_UPDATE,
  LEASE_RELEASE_CONDITION,
  LEASE_RELEASE_UPDATE,
  namesFor,
} from './expressions.js';
import { assertValidOwner, ATTR, errorName, isValidSessionId, META_SK, metaKey, sessionPk } from './table.js';

export interface AcquireSessionLeaseOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  /** How long the lease holds unless released, in milliseconds. */
  leaseMs: number;
  /** Epoch milliseconds now (default `Date.now`). */
  now?: () => number;
}

export interface SessionLease {
  leaseId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** Gives the lease up if it is still ours; never throws for a lease that expired and was taken. */
  release(): Promise<void>;
}

/**
 * Takes the session's turn lease with one conditional UpdateItem on its META item.
 * `SessionBusyError` while another unexpired lease holds; `SessionNotFoundError` for a
 * missing session, another owner's, or one being deleted.
 *
 * @example
 * const lease = await acquireSessionLease({ client, tableName, owner, sessionId, leaseMs: 60_000 });
 * try { await runTurn(); } finally { await lease.release(); }
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
  const now = (options.now ?? Date.now)();
  const leaseId = randomUUID();
  const expiresAt = now + leaseMs;
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
          ':lease_expires_at': { N: String(expiresAt) },
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
    const old = (error as { Item?: Record<string, AttributeValue> }).Item;
    // Missing, another owner's, or a tombstone (being deleted): not found, whatever its lease says.
    if (old === undefined || old[ATTR.owner]?.S !== owner || old[ATTR.deletedAt] !== undefined) {
      throw new SessionNotFoundError(sessionId, { cause: error });
    }
    const held = Number(old[ATTR.leaseExpiresAt]?.N ?? Number.NaN);
    throw new SessionBusyError(sessionId, Number.isFinite(held) ? held : null, { cause: error });
  }
  if (attributes === undefined) throw new TypeError('UpdateItem with ReturnValues ALL_NEW returned no attributes');
  const meta = decodeMeta(attributes, `dynamodb:${tableName}/${sessionPk(sessionId)}/${META_SK}`);
  const lease: SessionLease = {
    leaseId,
    expiresAt,
    release: async () => {
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: metaKey(sessionId),
            UpdateExpression: LEASE_RELEASE_UPDATE,
            ConditionExpression: LEASE_RELEASE_CONDITION,
            ExpressionAttributeNames: namesFor(LEASE_RELEASE_UPDATE, LEASE_RELEASE_CONDITION),
            ExpressionAttributeValues: { ':lease_id': { S: leaseId } },
          }),
        );
      } catch (error) {
        // Expired and taken by someone else, or the session was deleted: nothing of ours to release.
        if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
      }
    },
  };
  return { lease, meta };
}
