/**
 * Sessions a warm process has read, kept so the next turn reads only what is new. A cached
 * copy is used only while the META item (read consistently by the same request) still
 * agrees with it — same incarnation of the session, same entry count and head — and only
 * as a prefix otherwise: entries are never changed once written, so a handle that holds
 * the first N reads from N on. Correctness never depends on it: anything that does not
 * match is read from DynamoDB.
 */
import type { SessionEntry } from '@panto/core';
import type { BuiltLog } from '@panto/core/store-kit';
import type { MetaRecord } from '../meta/meta-item.js';

export interface CachedSession {
  /** The META item's incarnation: a session deleted and made again under the same id has another. */
  incarnation: string;
  /** Every entry, in log order (never changed after it is cached; copy before extending). */
  entries: readonly SessionEntry[];
  /** JSONL bytes of the entries, as stored: what the cache's budget counts. */
  bytes: number;
  /**
   * META as this process last read or wrote it, agreeing with `entries` (their count and
   * head): what a turn conditions its first write on instead of reading it again
   * (`DynamoStore.forTurn`). Absent when only the entries are known.
   */
  meta?: MetaRecord;
  /**
   * What a log made of `entries` knew beyond them (their ids' positions, the active path
   * rebuilt), so that the next turn's log is made without walking them (`SessionLog.of`);
   * absent until a log of exactly these entries rebuilt its path. Never changed once cached.
   */
  built?: BuiltLog;
}

export interface SessionCacheOptions {
  /** Total JSONL bytes kept, across sessions (default 64 MiB); least recently used go first. */
  maxBytes?: number;
}

export const DEFAULT_SESSION_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * An LRU of sessions by id, bounded by bytes. Share one per process (module scope in a
 * Lambda function) and pass it to `DynamoStore.open` / `DynamoStore.lease`.
 *
 * @example
 * const cache = new SessionCache({ maxBytes: 32 * 1024 * 1024 });
 * const { store, lease } = await DynamoStore.lease({ client, tableName, owner, sessionId, leaseMs, cache });
 */
export class SessionCache {
  readonly #maxBytes: number;
  readonly #sessions = new Map<string, CachedSession>();
  readonly #reads = new Map<string, Promise<unknown>>();
  #bytes = 0;

  constructor(options: SessionCacheOptions = {}) {
    this.#maxBytes = options.maxBytes ?? DEFAULT_SESSION_CACHE_BYTES;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  get(sessionId: string): CachedSession | undefined {
    const cached = this.#sessions.get(sessionId);
    if (cached === undefined) return undefined;
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, cached);
    return cached;
  }

  set(sessionId: string, session: CachedSession): void {
    this.delete(sessionId);
    if (session.bytes > this.#maxBytes) return;
    this.#sessions.set(sessionId, session);
    this.#bytes += session.bytes;
    for (const [id, oldest] of this.#sessions) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#sessions.delete(id);
      this.#bytes -= oldest.bytes;
    }
  }

  /**
   * Runs `read` once for every caller that asks for the same `key` while it is in flight,
   * and gives each the same result (or failure): concurrent reads of one session share one
   * request and one copy of what it read. Callers must not change the result.
   */
  shareRead<T>(key: string, read: () => Promise<T>): Promise<T> {
    const pending = this.#reads.get(key) as Promise<T> | undefined;
    if (pending !== undefined) return pending;
    const started = read().finally(() => this.#reads.delete(key));
    this.#reads.set(key, started);
    return started;
  }

  /**
   * Forgets what the cache says of a session's META, keeping its entries (they never change):
   * for when a write conditioned on that META was refused. The next turn reads META again,
   * and only the entries after the cached ones.
   */
  forgetMeta(sessionId: string): void {
    const cached = this.#sessions.get(sessionId);
    if (cached?.meta === undefined) return;
    const { meta: _meta, ...entries } = cached;
    this.#sessions.set(sessionId, entries);
  }

  /**
   * Keeps `built` with the cached entries of the session when they are exactly the entries it
   * was made of (same incarnation, count and newest id); else changes nothing.
   */
  keepBuilt(sessionId: string, incarnation: string | null, built: BuiltLog | null): void {
    const cached = this.#sessions.get(sessionId);
    if (built === null || cached === undefined || cached.incarnation !== incarnation || cached.built !== undefined) return;
    if (cached.entries.length !== built.count || (cached.entries.at(-1)?.id ?? null) !== built.leafId) return;
    this.#sessions.set(sessionId, { ...cached, built });
  }

  delete(sessionId: string): void {
    const cached = this.#sessions.get(sessionId);
    if (cached === undefined) return;
    this.#sessions.delete(sessionId);
    this.#bytes -= cached.bytes;
  }
}
