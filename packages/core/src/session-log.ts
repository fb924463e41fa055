/**
 * The bookkeeping every store shares, in one place: what is chained to what. A store keeps
 * a {@link SessionLog} of the session as its handle last saw it and does only the I/O —
 * reading entries in, writing a chained batch out, and telling a lost race apart.
 */
import { InvalidBatchError } from './errors.js';
import { newestModel, rebuildConversation, resumeParent, type RebuiltSession } from './rebuild.js';
import type { ActiveModel, DiskMessage, LoadedSession, SessionEntry } from './session-store.js';

/** What a store knows of a session it has not read the entries of (e.g. from a metadata record). */
export interface LogHead {
  /** Entries in the session. */
  count: number;
  /** The newest entry, or null while the session is empty. */
  leafId: string | null;
  /** The parent a reloaded handle would chain to: the leaf, or a trailing prompt's parent. */
  resumeParent: string | null;
  activeModel: ActiveModel | null;
}

/**
 * One session's entries as a handle last saw them (or only their head), and the rules:
 * - the next append chains after the last batch this handle appended, or — after a load —
 *   after the leaf, except that a trailing unanswered prompt is left to be answered by a
 *   sibling (its parent is the next parent; see `resumeParent` in rebuild.ts);
 * - ids are unique in the session (when the handle has seen the entries);
 * - the active model is the newest on the path that names one.
 *
 * @example
 * // In a store: load, then append.
 * this.#log = SessionLog.of(await readAllEntries());
 * const entries = this.#log.chain(batch);      // throws InvalidBatchError, changes nothing
 * await writeIfHeadIs(this.#log.count, entries);
 * this.#log.commit(entries);
 */
export class SessionLog {
  /** Every entry in log order; null when the log is known by its head only. */
  #entries: SessionEntry[] | null;
  #ids: Set<string> | null;
  #count: number;
  #leafId: string | null;
  #nextParent: string | null;
  #resumeParent: string | null;
  #activeModel: ActiveModel | null;
  /** The rebuild of the current entries, made at most once. */
  #rebuilt: RebuiltSession | undefined;

  private constructor(entries: SessionEntry[] | null, head: LogHead) {
    this.#entries = entries;
    this.#ids = entries === null ? null : new Set(entries.map((entry) => entry.id));
    this.#count = head.count;
    this.#leafId = head.leafId;
    this.#resumeParent = head.resumeParent;
    this.#nextParent = head.resumeParent;
    this.#activeModel = head.activeModel;
  }

  /** An empty session. */
  static empty(): SessionLog {
    return new SessionLog([], { count: 0, leafId: null, resumeParent: null, activeModel: null });
  }

  /**
   * The log of `entries` (in the order they were written), as a load sees it. The entries
   * are kept, not copied. Throws `SessionCorruptError` when they do not form a tree.
   */
  static of(entries: SessionEntry[], source?: string): SessionLog {
    const rebuilt = rebuildConversation(entries, source);
    const log = new SessionLog(entries, {
      count: entries.length,
      leafId: rebuilt.leafId,
      resumeParent: rebuilt.head,
      activeModel: rebuilt.activeModel,
    });
    log.#rebuilt = rebuilt;
    return log;
  }

  /** A session known by its head only: appends chain correctly, but ids cannot be checked. */
  static fromHead(head: LogHead): SessionLog {
    return new SessionLog(null, head);
  }

  /** Every entry in log order, or null when this log knows only the head. */
  get entries(): readonly SessionEntry[] | null {
    return this.#entries;
  }

  /** Entries in the session. */
  get count(): number {
    return this.#count;
  }

  /** The newest entry's id, or null while the session is empty. */
  get leafId(): string | null {
    return this.#leafId;
  }

  /** The parent of the next appended entry. */
  get nextParent(): string | null {
    return this.#nextParent;
  }

  /** The parent a handle that reloads the session now would chain to. */
  get resumeParent(): string | null {
    return this.#resumeParent;
  }

  /** The provider and model of the newest entry on the path that names them. */
  get activeModel(): ActiveModel | null {
    return this.#activeModel;
  }

  /** Whether the session holds `id` (false for every id when the log knows only its head). */
  has(id: string): boolean {
    return this.#ids?.has(id) ?? false;
  }

  /**
   * Chains a batch after {@link nextParent}: the first record's parent is it, each next
   * record's the one before. Changes nothing. `InvalidBatchError` for a record without an
   * id, or whose id the session (as far as this log knows) or the batch already holds.
   */
  chain(batch: readonly DiskMessage[]): SessionEntry[] {
    const seen = new Set<string>();
    const entries: SessionEntry[] = [];
    let parent = this.#nextParent;
    for (const record of batch) {
      if (typeof record.id !== 'string' || record.id === '') throw new InvalidBatchError('every record needs an id');
      if (seen.has(record.id) || this.has(record.id)) {
        throw new InvalidBatchError(`duplicate entry id ${record.id}: nothing was written`);
      }
      seen.add(record.id);
      entries.push({ ...record, parent_id: parent });
      parent = record.id;
    }
    return entries;
  }

  /** Records a chained batch that is now durable: the next append follows it. */
  commit(entries: readonly SessionEntry[]): void {
    const last = entries[entries.length - 1];
    if (last === undefined) return;
    if (this.#entries !== null) for (const entry of entries) this.#entries.push(entry);
    if (this.#ids !== null) for (const entry of entries) this.#ids.add(entry.id);
    this.#count += entries.length;
    this.#leafId = last.id;
    this.#nextParent = last.id;
    this.#resumeParent = resumeParent(last);
    this.#activeModel = newestModel(entries) ?? this.#activeModel;
    this.#rebuilt = undefined;
  }

  /**
   * The conversation on the path from the leaf, with the dangling prompt apart (see
   * `rebuildConversation`), as a load returns it; the next append then chains as after a
   * load (a dangling prompt is answered by a sibling). Needs the entries. Each call builds
   * a conversation of its own.
   */
  load(source?: string): LoadedSession {
    if (this.#entries === null) throw new TypeError('SessionLog.load needs the entries: build the log with SessionLog.of');
    const rebuilt = this.#rebuilt ?? rebuildConversation(this.#entries, source);
    this.#rebuilt = undefined;
    this.#nextParent = this.#resumeParent;
    return { conversation: rebuilt.conversation, danglingUser: rebuilt.danglingUser };
  }
}
