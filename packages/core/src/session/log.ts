/**
 * The bookkeeping every store shares, in one place: what is chained to what. A store keeps
 * a {@link SessionLog} of the session as its handle last saw it and does only the I/O —
 * reading entries in, writing a chained batch out, and telling a lost race apart.
 */
import { EntryNotFoundError, InvalidBatchError } from '../errors.js';
import { type ActivePath, activeEnd, activePathOf, extendActivePath, loadActivePath } from './active-path.js';
import { activeEntry, type EntryLookup, newestModel, pathFrom, rebuildConversation, resumeParent, standsFor, type RebuiltSession } from './rebuild.js';
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
 * What a log made from its entries knows beyond them — where each id is, and its active path
 * rebuilt — for a store to keep beside the entries (in its cache) and give back to
 * `SessionLog.of` with the same entries, which then walks none of them. It holds for exactly
 * those entries (`count`, `leafId`). Logs made from it share `ids`, which only ever gains the
 * positions of entries committed after them: an entry's position in a session never changes.
 */
export interface BuiltLog {
  readonly count: number;
  readonly leafId: string | null;
  /** Each entry's position in the session (a log reads only those below its own count). */
  readonly ids: Map<string, number>;
  readonly path: ActivePath;
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
  /** Each entry's position (shared with the logs of a {@link BuiltLog}); null when the log is known by its head only. */
  #ids: Map<string, number> | null;
  /** The entries by id, as far as this log holds them. */
  readonly #byId: EntryLookup & { size: number } = {
    get: (id) => {
      const at = this.#ids?.get(id);
      return at === undefined || at >= this.#count ? undefined : this.#entries?.[at];
    },
    // Kept equal to the count: a walk of the path is bounded by it.
    size: 0,
  };
  #count: number;
  #leafId: string | null;
  #nextParent: string | null;
  #resumeParent: string | null;
  #activeModel: ActiveModel | null;
  /** The active path rebuilt, kept up to date by each commit; undefined until a load needs it, or after a commit it cannot follow. */
  #path: ActivePath | undefined;

  private constructor(entries: SessionEntry[] | null, head: LogHead, ids?: Map<string, number>) {
    this.#entries = entries;
    this.#ids = entries === null ? null : (ids ?? new Map(entries.map((entry, at) => [entry.id, at])));
    this.#count = this.#byId.size = head.count;
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
   * are kept, not copied. Throws `SessionCorruptError` when they do not form a tree. With
   * `built` (see {@link built}) of these same entries, nothing is walked: the log is made
   * from it; a `built` of other entries is ignored. `ids`, each entry's position by id, is
   * the index when the caller made it already (a decoder that kept it): it is not made twice.
   */
  static of(entries: SessionEntry[], source = 'session', built?: BuiltLog, ids?: Map<string, number>): SessionLog {
    const leafId = entries[entries.length - 1]?.id ?? null;
    const reuse = built !== undefined && built.count === entries.length && built.leafId === leafId;
    const head = { count: entries.length, leafId, resumeParent: null, activeModel: null };
    const log = new SessionLog(entries, head, reuse ? built.ids : ids);
    const path = reuse ? built.path : activePathOf(entries, log.#byId, source);
    log.#path = path;
    log.#resumeParent = log.#nextParent = resumeParent(activeEnd(path));
    log.#activeModel = newestModel(path.open) ?? path.closedModel;
    return log;
  }

  /** What this log knows beyond its entries, to make a log of the same entries from (see {@link BuiltLog}); null when it holds no entries or has not rebuilt its path. */
  built(): BuiltLog | null {
    if (this.#entries === null || this.#ids === null || this.#path === undefined) return null;
    return { count: this.#count, leafId: this.#leafId, ids: this.#ids, path: this.#path };
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
    return this.#byId.get(id) !== undefined;
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
    if (typeof record.id !== 'string' || record.id === '' || byId.get(record.id) !== undefined) {
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
    const held = this.#requireEntries('headAfter');
    const added = new Map(entries.map((entry) => [entry.id, entry]));
    const byId: EntryLookup = { get: (id) => added.get(id) ?? held.get(id), size: held.size + added.size };
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
    if (this.#entries !== null && this.#ids !== null) {
      for (const entry of entries) {
        // Shared with other logs of the session: a position, once known, is the same for all.
        if (!this.#ids.has(entry.id)) this.#ids.set(entry.id, this.#entries.length);
        this.#entries.push(entry);
      }
    }
    this.#count = this.#byId.size = head.count;
    this.#leafId = head.leafId;
    // A batch this handle appended is followed as written (a prompt it just sent is answered
    // after it); after a switch, the rule of a load applies.
    this.#nextParent = last.type === 'leaf' ? head.resumeParent : last.id;
    this.#resumeParent = head.resumeParent;
    this.#activeModel = head.activeModel;
    this.#path = this.#path === undefined ? undefined : extendActivePath(this.#path, entries);
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
      this.#path ??= activePathOf(entries, this.#byId, source ?? 'session');
      rebuilt = loadActivePath(this.#path, this.#leafId);
      this.#nextParent = this.#resumeParent;
    } else {
      rebuilt = rebuildConversation(entries, source, { at: options.at }, this.#byId);
      this.#nextParent = rebuilt.head;
    }
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

  #requireEntries(operation: string): EntryLookup {
    if (this.#ids === null) throw new TypeError(`SessionLog.${operation} needs the entries: build the log with SessionLog.of`);
    return this.#byId;
  }
}
