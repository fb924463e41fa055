/**
 * The bookkeeping every store shares, in one place: what is chained to what. A store keeps
 * a {@link SessionLog} of the session as its handle last saw it and does only the I/O —
 * reading entries in, writing a chained batch out, and telling a lost race apart.
 */
import { EntryNotFoundError, InvalidBatchError } from '../errors.js';
import { activeEntry, indexEntries, newestModel, pathFrom, rebuildConversation, resumeParent, standsFor, type RebuiltSession } from './rebuild.js';
import type { ActiveModel, DiskMessage, LeafEntry, LoadedSession, LoadOptions, SessionEntry } from './records.js';
import { SessionTree } from './tree.js';

/** What a store knows of a session it has not read the entries of (e.g. from a metadata record). */
export interface LogHead {
  /** Entries in the session. */
  count: number;
  /** The newest entry (a leaf entry included), or null while the session is empty: what an append's head check compares. */
  leafId: string | null;
  /**
   * The parent a reloaded handle would chain to: the active entry (the newest, or the one
   * a newest leaf entry switched to), or a trailing prompt's parent.
   */
  resumeParent: string | null;
  activeModel: ActiveModel | null;
}

/**
 * One session's entries as a handle last saw them (or only their head), and the rules:
 * - the next append chains after the last batch this handle appended, or — after a load —
 *   after the active entry (the newest, or the one a newest leaf entry switched to) or the
 *   entry the load was `at`, except that a trailing unanswered prompt is left to be
 *   answered by a sibling (its parent is the next parent; see `resumeParent` in rebuild.ts);
 * - a switch of the active branch is a leaf entry, appended like a batch ({@link leaf});
 * - ids are unique in the session (when the handle has seen the entries);
 * - the active model is the newest on the active path that names one.
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
  /** The entries by id; null when the log is known by its head only. */
  #byId: Map<string, SessionEntry> | null;
  #count: number;
  #leafId: string | null;
  #nextParent: string | null;
  #resumeParent: string | null;
  #activeModel: ActiveModel | null;
  /** The rebuild of the current entries, made at most once. */
  #rebuilt: RebuiltSession | undefined;

  private constructor(entries: SessionEntry[] | null, head: LogHead, byId = entries === null ? null : indexEntries(entries)) {
    this.#entries = entries;
    this.#byId = byId;
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
   * are kept, not copied; so is `byId`, the same entries by id, when the caller has it
   * (`decodeSession` returns it). Throws `SessionCorruptError` when they do not form a tree.
   */
  static of(entries: SessionEntry[], source?: string, byId = indexEntries(entries)): SessionLog {
    const rebuilt = rebuildConversation(entries, source, {}, byId);
    const log = new SessionLog(entries, { count: entries.length, leafId: rebuilt.leafId, resumeParent: rebuilt.head, activeModel: rebuilt.activeModel }, byId);
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

  /** The newest entry's id (a leaf entry's included), or null while the session is empty: the head an append expects. */
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
    return this.#byId?.has(id) ?? false;
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

  /**
   * A leaf entry that makes `entryId` (or, for a leaf entry's id, the entry it switched to)
   * the active entry — or null when it already is. Changes nothing; commit it once it is
   * durable. Needs the entries. `EntryNotFoundError` for an id the session does not hold,
   * `InvalidBatchError` for a `record.id` it does.
   */
  leaf(entryId: string, record: { id: string; timestamp: string }): LeafEntry | null {
    const byId = this.#requireEntries('leaf');
    const named = byId.get(entryId);
    if (named === undefined) throw new EntryNotFoundError(entryId);
    const target = standsFor(named, byId, 'session');
    if (target.id === activeEntry(this.#entries!, byId, 'session')?.id) return null;
    if (typeof record.id !== 'string' || record.id === '' || byId.has(record.id)) {
      throw new InvalidBatchError(`leaf entry id ${JSON.stringify(record.id)} is missing or taken: nothing was written`);
    }
    return { type: 'leaf', id: record.id, parent_id: target.id, timestamp: record.timestamp };
  }

  /**
   * The head this log has once `entries` (a chained batch, or one leaf entry) are
   * committed, without changing anything: what a store that keeps a head record (a META
   * item, a row) writes with them.
   */
  headAfter(entries: readonly SessionEntry[]): LogHead {
    const last = entries[entries.length - 1];
    if (last === undefined) {
      return {
        count: this.#count,
        leafId: this.#leafId,
        resumeParent: this.#resumeParent,
        activeModel: this.#activeModel,
      };
    }
    const count = this.#count + entries.length;
    if (last.type !== 'leaf') {
      return {
        count,
        leafId: last.id,
        resumeParent: resumeParent(last),
        activeModel: newestModel(entries) ?? this.#activeModel,
      };
    }
    const byId = new Map(this.#requireEntries('headAfter'));
    for (const entry of entries) byId.set(entry.id, entry);
    const target = standsFor(last, byId, 'session');
    return {
      count,
      leafId: last.id,
      resumeParent: resumeParent(target),
      activeModel: newestModel(pathFrom(target, byId, 'session')),
    };
  }

  /** Records a chained batch (or a leaf entry) that is now durable: the next append follows it. */
  commit(entries: readonly SessionEntry[]): void {
    const last = entries[entries.length - 1];
    if (last === undefined) return;
    const head = this.headAfter(entries);
    if (this.#entries !== null) for (const entry of entries) this.#entries.push(entry);
    if (this.#byId !== null) for (const entry of entries) this.#byId.set(entry.id, entry);
    this.#count = head.count;
    this.#leafId = head.leafId;
    // A batch this handle appended is followed as written (a prompt it just sent is answered
    // after it); after a switch, the rule of a load applies.
    this.#nextParent = last.type === 'leaf' ? head.resumeParent : last.id;
    this.#resumeParent = head.resumeParent;
    this.#activeModel = head.activeModel;
    this.#rebuilt = undefined;
  }

  /**
   * The conversation on the path to the active entry — or to `options.at` — with the
   * dangling prompt apart (see `rebuildConversation`), as a load returns it; the next append
   * then chains as after a load (after the entry, or as a dangling prompt's sibling). A load
   * `at` an entry writes nothing and leaves the active model as it is. Needs the entries.
   * Each call builds a conversation of its own.
   */
  load(source?: string, options: LoadOptions = {}): LoadedSession {
    const entries = this.#entries;
    if (entries === null) throw new TypeError('SessionLog.load needs the entries: build the log with SessionLog.of');
    let rebuilt: RebuiltSession;
    if (options.at === undefined) {
      rebuilt = this.#rebuilt ?? rebuildConversation(entries, source, {}, this.#byId!);
      this.#nextParent = this.#resumeParent;
    } else {
      rebuilt = rebuildConversation(entries, source, { at: options.at }, this.#byId!);
      this.#nextParent = rebuilt.head;
    }
    this.#rebuilt = undefined;
    return {
      conversation: rebuilt.conversation,
      danglingUser: rebuilt.danglingUser,
      entries: rebuilt.entries,
      at: rebuilt.at,
    };
  }

  /** The whole tree of the entries as this log holds them now (a copy: later commits do not change it). Needs the entries. */
  tree(source?: string): SessionTree {
    this.#requireEntries('tree');
    return SessionTree.of([...this.#entries!], source);
  }

  #requireEntries(operation: string): Map<string, SessionEntry> {
    if (this.#byId === null) throw new TypeError(`SessionLog.${operation} needs the entries: build the log with SessionLog.of`);
    return this.#byId;
  }
}
