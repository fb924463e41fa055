/**
 * The table's keys: sort-key and partition-key prefixes, the index names, and the builders
 * every item's key comes from. See docs/aws.md for the item shapes.
 */
import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ATTR } from './attributes.js';

export const META_SK = 'META';
export const ENTRY_SK_PREFIX = 'E#';
export const SESSION_PK_PREFIX = 'SESSION#';
export const OWNER_PK_PREFIX = 'OWNER#';
export const GSI_BY_OWNER = 'byOwner';
export const GSI_BY_ACTIVITY = 'byActivity';
/**
 * What the `byOwner` index holds of META besides the keys: what a session list shows, and no
 * attribute a turn's prompt or a lease changes, so neither writes to the index (an update
 * that changes no projected attribute costs the index nothing). infra/storage.ts projects
 * the same (test/sst-config.test.ts holds them together).
 */
export const BY_OWNER_PROJECTION: readonly string[] = [
  ATTR.owner,
  ATTR.createdAt,
  ATTR.updatedAt,
  ATTR.title,
  ATTR.activeProvider,
  ATTR.activeModel,
  ATTR.expiresAt,
  ATTR.archivedAt,
  ATTR.listedCount,
  ATTR.listedHead,
];
export const ACTIVITY_PK_PREFIX = 'ACTIVITY#';
/** A one-time migration's marker item: `MIGRATION#<name>` / `MIGRATION`. */
export const MIGRATION_PK_PREFIX = 'MIGRATION#';
export const MIGRATION_SK = 'MIGRATION';
/**
 * Shards of the `byActivity` index. Every append writes its index key, so one partition key
 * for all sessions would put every append of the service on one index partition; sixteen
 * spread them, and the sweeper queries each.
 */
export const ACTIVITY_SHARDS = 16;

/** Digits of the entry index in an entry item's sort key (`E#000000000042`). */
const ENTRY_INDEX_DIGITS = 12;

export function sessionPk(sessionId: string): string {
  return `${SESSION_PK_PREFIX}${sessionId}`;
}

/** The sort key of the entry item whose first entry is the session's `index`-th (0-based). */
export function entrySk(index: number): string {
  return `${ENTRY_SK_PREFIX}${String(index).padStart(ENTRY_INDEX_DIGITS, '0')}`;
}

/** The index encoded in an entry sort key, or undefined for any other sort key. */
export function entryIndexOf(sk: string): number | undefined {
  if (!sk.startsWith(ENTRY_SK_PREFIX)) return undefined;
  const digits = sk.slice(ENTRY_SK_PREFIX.length);
  if (!/^\d+$/.test(digits)) return undefined;
  return Number(digits);
}

/** The key of a session's META item. */
export function metaKey(sessionId: string): Record<string, AttributeValue> {
  return { [ATTR.pk]: { S: sessionPk(sessionId) }, [ATTR.sk]: { S: META_SK } };
}

/** The key of migration `name`'s marker item. */
export function migrationKey(name: string): Record<string, AttributeValue> {
  return { [ATTR.pk]: { S: `${MIGRATION_PK_PREFIX}${name}` }, [ATTR.sk]: { S: MIGRATION_SK } };
}

/** Names an item in errors: `dynamodb:<table>/<pk>/<sk>`. */
export function itemSource(tableName: string, pk: string, sk: string): string {
  return `dynamodb:${tableName}/${pk}/${sk}`;
}

export function ownerPk(owner: string): string {
  return `${OWNER_PK_PREFIX}${owner}`;
}

/** The GSI sort key: newest first sorts by update time, ties broken by session id. */
export function ownerSk(updatedAt: string, sessionId: string): string {
  return `${updatedAt}#${sessionId}`;
}

/** The `byActivity` partition of a session: one of {@link ACTIVITY_SHARDS}, by a hash of its id. */
export function activityPk(sessionId: string): string {
  return activityShardPk(createHash('sha256').update(sessionId).digest().readUInt32BE(0) % ACTIVITY_SHARDS);
}

/** The `byActivity` partition key of shard `shard` (0-based). */
export function activityShardPk(shard: number): string {
  return `${ACTIVITY_PK_PREFIX}${String(shard).padStart(2, '0')}`;
}

/** The `byActivity` sort key: the last write (or restore), then the session id — `< <cutoff ISO time>` finds the cold ones. */
export function activitySk(at: string, sessionId: string): string {
  return `${at}#${sessionId}`;
}

/** The values of a META update that moves `updated_at` to `at`, and both indexes' keys with it. */
export function updatedValues(at: string, sessionId: string): Record<string, AttributeValue> {
  return {
    ':updated_at': { S: at },
    ':gsi1sk': { S: ownerSk(at, sessionId) },
    ':gsi2pk': { S: activityPk(sessionId) },
    ':gsi2sk': { S: activitySk(at, sessionId) },
  };
}
