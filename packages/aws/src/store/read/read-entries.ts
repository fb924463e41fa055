/**
 * A handle's load: every entry of its session, read from DynamoDB only as far as the
 * process's `SessionCache` does not hold them, and reads of one session at once shared.
 */
import { type BuiltLog, SessionNotFoundError, type SessionEntry } from '@panto/core/store-kit';
import type { MetaRecord } from '../../meta/meta-item.js';
import { isVisibleTo } from '../../meta/visibility.js';
import { restoreIfArchived, type Handle, type SessionView } from '../handle.js';
import type { PartialAnswer } from '../../partial/partial-answer.js';
import { readSession, type SessionRead } from './read-session.js';

/** A read of every entry of a session, and the META item it agrees with. */
export interface EntriesRead {
  /** Shared with the cache: copy before extending. */
  entries: readonly SessionEntry[];
  meta: MetaRecord;
  /** JSONL bytes of the entries. */
  bytes: number;
  /** The partial answer item, when the read queried the table and found one. */
  partial: PartialAnswer | null;
  /** What the cache knew of these entries beyond them (see `SessionLog.of`), when it held them all. */
  built?: BuiltLog;
}

/**
 * Every entry of the session, with the META item they agree with, read as far as the cache
 * does not hold them: nothing at all right after `open`/`lease` when the cache agrees with
 * META (read consistently just then), else the entries after the cached ones, else all.
 * Keeps the cache up to date; changes nothing of the handle's view.
 */
export async function readEntries(handle: Handle, sessionId: string, view: Pick<SessionView, 'meta' | 'metaFresh'>): Promise<EntriesRead> {
  const { cache } = handle;
  const { meta: seen } = view;
  const cached = cache?.get(sessionId);
  const usable = cached !== undefined && cached.incarnation === seen.incarnation;
  if (usable && view.metaFresh && cached.entries.length === seen.metadata.entryCount && cached.entries.at(-1)?.id === (seen.metadata.head ?? undefined)) {
    // The cache holds exactly this already (and `get` made it the most recent): nothing to copy or keep.
    return { entries: cached.entries, meta: seen, bytes: cached.bytes, partial: null, ...(cached.built === undefined ? {} : { built: cached.built }) };
  }
  const result = await readPastCache(handle, sessionId, seen);
  if (cache !== undefined && result.meta.incarnation !== null) {
    cache.set(sessionId, { incarnation: result.meta.incarnation, entries: result.entries, bytes: result.bytes, meta: result.meta });
  }
  return result;
}

/**
 * Every entry and META with one Query of the entries after those the cache holds (a cached
 * prefix of the same incarnation), else of all; an archived session is restored first.
 * `seen`, the META the handle last saw (null for a handle that has not read it), lets reads
 * of one session at once be shared. `SessionNotFoundError` unless `handle.owner` may see it.
 */
export async function readPastCache(handle: Handle, sessionId: string, seen: MetaRecord | null): Promise<EntriesRead> {
  const cached = handle.cache?.get(sessionId);
  // Entries never change once written: a cached prefix holds even when it is ahead of the
  // META this handle last saw (another handle of this process appended since — a follower).
  let from = cached !== undefined && (seen === null || cached.incarnation === seen.incarnation) ? cached.entries.length : 0;
  let read = await readFrom(handle, sessionId, seen, from);
  // Deleted and made again under this id since: the cached prefix is another session's.
  if (from > 0 && read.meta?.incarnation !== cached?.incarnation) {
    from = 0;
    read = await readFrom(handle, sessionId, seen, from);
  }
  const meta = read.meta;
  if (!isVisibleTo(meta, handle.owner, handle.clock().getTime())) throw new SessionNotFoundError(sessionId);
  const reused = from === 0 ? null : cached!;
  return {
    // A copy: the read may be shared with other handles, and a handle's log grows in place.
    entries: reused === null ? [...read.entries] : [...reused.entries, ...read.entries],
    meta,
    bytes: (reused === null ? 0 : reused.bytes) + read.bytes,
    partial: read.partial,
  };
}

/** The session's entries from `fromIndex` on, and its META; an archived session is restored first. */
async function readFrom(handle: Handle, sessionId: string, seen: MetaRecord | null, fromIndex: number): Promise<SessionRead> {
  const query = (): Promise<SessionRead> => readSession({ client: handle.client, tableName: handle.tableName, sessionId, s3: handle.s3, fromIndex });
  // Handles of one process reading the same session at once (followers of a turn) share one
  // read, and hold one copy of its entries rather than one each. Only a read that began after
  // META said what this handle's META says is shared: it holds at least what this handle saw.
  const key = seen === null ? null : `${sessionId}:${seen.incarnation ?? ''}:${seen.metadata.entryCount}:${seen.metadata.head ?? ''}:${fromIndex}`;
  const read = await (key === null ? query() : (handle.cache?.shareRead(key, query) ?? query()));
  if (read.meta?.archivedAt == null || !isVisibleTo(read.meta, handle.owner, handle.clock().getTime())) return read;
  // Archived since this handle last looked: restore it (the same entries, item boundaries
  // where the appends left them), then read what is asked for.
  await restoreIfArchived(handle, sessionId, read.meta);
  return query();
}
