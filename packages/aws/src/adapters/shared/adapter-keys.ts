/**
 * The keys of what the SDK adapters keep in the sessions table: each adapter's partitions start
 * with a prefix of its own (`CLAUDE#`, `LANGGRAPH#`, `OPENAI#`), never `SESSION#`, so no
 * DynamoStore code path (listing, the archive sweep, the activity backfill, the TTL clean-up)
 * ever reads them as panto sessions. See docs/aws.md, "The SDK adapters' items".
 */

export const CLAUDE_PK_PREFIX = 'CLAUDE#';
export const LANGGRAPH_PK_PREFIX = 'LANGGRAPH#';
export const OPENAI_PK_PREFIX = 'OPENAI#';

/** A log's head item: `H#<sub>` (`H#` for a partition's main log). */
export const LOG_HEAD_SK_PREFIX = 'H#';
/** A log's entry items: `E#<sub>#<index>`. */
export const LOG_ENTRY_SK_PREFIX = 'E#';
/** Digits of an index in a sort key: sorts numerically, like DynamoStore's `E#000000000042`. */
const INDEX_DIGITS = 12;

/**
 * One component of a key, made safe to join with `#` and `/`: percent-encoding (as
 * `encodeURIComponent`) leaves no `#` or `/` in it and is reversible, so two different
 * components never make the same key.
 */
export function keyPart(value: string): string {
  return encodeURIComponent(value);
}

/** The inverse of {@link keyPart}. */
export function fromKeyPart(part: string): string {
  return decodeURIComponent(part);
}

export function paddedIndex(index: number): string {
  return String(index).padStart(INDEX_DIGITS, '0');
}

/** The head item's sort key of log `sub` ('' for the partition's main log). */
export function logHeadSk(sub: string): string {
  return `${LOG_HEAD_SK_PREFIX}${keyPart(sub)}`;
}

/** The sort-key prefix of log `sub`'s entry items. */
export function logEntryPrefix(sub: string): string {
  return `${LOG_ENTRY_SK_PREFIX}${keyPart(sub)}#`;
}

/** The sort key of log `sub`'s entry item whose first entry is the log's `index`-th. */
export function logEntrySk(sub: string, index: number): string {
  return `${logEntryPrefix(sub)}${paddedIndex(index)}`;
}

/** The index in an entry sort key of log `sub`, or undefined for any other key. */
export function logEntryIndexOf(sub: string, sk: string): number | undefined {
  const prefix = logEntryPrefix(sub);
  if (!sk.startsWith(prefix)) return undefined;
  const digits = sk.slice(prefix.length);
  return /^\d+$/.test(digits) ? Number(digits) : undefined;
}

/** The sub of a head sort key, or undefined for any other key. */
export function subOfHeadSk(sk: string): string | undefined {
  return sk.startsWith(LOG_HEAD_SK_PREFIX) ? fromKeyPart(sk.slice(LOG_HEAD_SK_PREFIX.length)) : undefined;
}
