/**
 * Who may see a session, and whether what META holds still holds on the reader's clock: the
 * one rule for "this owner's live session" — the code side of `META_OF_OWNER`, which guards
 * the writes — judged on a decoded META record or on a raw item a failed condition returned,
 * and the read of META that applies it (`visibleMeta`).
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core/store-kit';
import { ATTR } from '../table/attributes.js';
import { readMeta, type HeldLease, type MetaRecord } from './meta-item.js';

/** What the ownership rule reads of a META item: whose it is, and whether it is a tombstone. */
export interface MetaOwnership {
  owner: string | undefined;
  /** Whether META is a tombstone: the session is being deleted. */
  tombstone: boolean;
}

/** The ownership of a raw META item (one a failed condition returned, a projection read); null when there is none. */
export function ownershipOf(item: Record<string, AttributeValue> | undefined): MetaOwnership | null {
  return item === undefined ? null : { owner: item[ATTR.owner]?.S, tombstone: item[ATTR.deletedAt] !== undefined };
}

/**
 * Whether META is `owner`'s live session: it exists, is the owner's and is not a tombstone.
 * What every append, lease and stop request is conditioned on (`META_OF_OWNER`): when that
 * condition fails, this says whether the session is gone for `owner` or only moved on.
 */
export function isOwnersSession(meta: MetaOwnership | null, owner: string): boolean {
  return meta !== null && meta.owner === owner && !meta.tombstone;
}

/** {@link isOwnersSession} of a raw META item: the one a failed condition returned (`ALL_OLD`), or one read by key. */
export function isOwnersItem(item: Record<string, AttributeValue> | undefined, owner: string): item is Record<string, AttributeValue> {
  return isOwnersSession(ownershipOf(item), owner);
}

/**
 * Whether `owner` may see the session META describes: it is the owner's live session
 * ({@link isOwnersSession}) and has not expired. Everything else is `SessionNotFoundError`.
 */
export function isVisibleTo(meta: MetaRecord | null, owner: string, nowMs: number): meta is MetaRecord {
  return meta !== null && isOwnersSession({ owner: meta.metadata.owner, tombstone: meta.deletedAt !== null }, owner) && !isExpired(meta, nowMs);
}

/** Whether a META item's TTL has passed (DynamoDB deletes expired items lazily, within days). */
export function isExpired(meta: Pick<MetaRecord, 'expiresAt'>, nowMs: number): boolean {
  return meta.expiresAt !== null && meta.expiresAt * 1000 <= nowMs;
}

/** Whether `lease` still holds at `nowMs` (epoch milliseconds). */
export function isLive(lease: Pick<HeldLease, 'expiresAt'> | null, nowMs: number): boolean {
  return lease !== null && lease.expiresAt > nowMs;
}

/** The session's META, consistently read, if `owner` may see it at `now` (`isVisibleTo`); else `SessionNotFoundError`. */
export async function visibleMeta(client: DynamoDBClient, tableName: string, owner: string, sessionId: string, now: Date): Promise<MetaRecord> {
  const meta = await readMeta(client, tableName, sessionId);
  if (!isVisibleTo(meta, owner, now.getTime())) throw new SessionNotFoundError(sessionId);
  return meta;
}
