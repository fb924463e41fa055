import { SessionConflictError } from '../errors.js';
import { newId, systemClock, type Clock, type IdGenerator } from '../ids.js';
import { SessionLog } from '../session/log.js';
import type { ActiveModel, DiskMessage, LoadedSession, LoadOptions, SessionEntry } from '../session/records.js';
import type { SessionStore } from '../session/store.js';
import { SessionTree } from '../session/tree.js';

/** The shared state behind every handle on one in-memory session: its "storage". */
export interface MemoryLog {
  readonly id: string;
  readonly entries: SessionEntry[];
}

export interface MemoryStoreOptions {
  sessionId?: string;
  /** Entries to start from (deep-copied), e.g. a fixture or a session read from elsewhere. */
  entries?: readonly SessionEntry[];
  /** Timestamps of leaf entries (a switch of the active branch). */
  clock?: Clock;
  /** Ids of leaf entries and of forked sessions. */
  ids?: IdGenerator;
}

/**
 * Keeps a session in memory, for tests and embedders that persist elsewhere. `entries`
 * exposes what was appended, for assertions. Several handles on one session
 * (`MemoryStore.open(store)`) detect each other's appends like any other store.
 *
 * It is also the smallest complete store, and the example of docs/stores.md: the I/O is a
 * shared array; everything else is {@link SessionLog}.
 *
 * @example
 * const store = new MemoryStore();
 * const agent = new Agent({ provider }, { store });
 * await agent.submitUserMessage('hi');
 * store.entries; // [{ type: 'message', message: { role: 'user', … }, … }]
 */
export class MemoryStore implements SessionStore {
  readonly #shared: MemoryLog;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  /** The session as this handle last saw it. */
  #log: SessionLog;

  constructor(options: MemoryStoreOptions | { log: MemoryLog; clock?: Clock; ids?: IdGenerator } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#ids = options.ids ?? newId;
    this.#shared = 'log' in options ? options.log : { id: options.sessionId ?? newId(), entries: structuredClone([...(options.entries ?? [])]) };
    this.#log = this.#read();
  }

  /** A second handle on the same session, up to date as of now. */
  static open(other: MemoryStore): MemoryStore {
    return new MemoryStore({ log: other.#shared, clock: other.#clock, ids: other.#ids });
  }

  /** Every entry appended to the session, in order. */
  get entries(): readonly SessionEntry[] {
    return this.#shared.entries;
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    if (batch.length === 0) return;
    this.#write(this.#log.chain(structuredClone(batch)));
  }

  async loadConversation(options: LoadOptions = {}): Promise<LoadedSession> {
    this.#log = this.#read();
    return this.#log.load(this.#source, options);
  }

  async loadTree(): Promise<SessionTree> {
    return SessionTree.of(structuredClone(this.#shared.entries), this.#source);
  }

  async switchLeaf(entryId: string): Promise<LoadedSession> {
    const leaf = this.#log.leaf(entryId, { id: this.#ids(), timestamp: this.#clock().toISOString() });
    if (leaf !== null) this.#write([leaf]);
    return this.#log.load(this.#source, { at: entryId });
  }

  /** A new in-memory session holding the path to `entryId`. */
  async fork(entryId: string): Promise<MemoryStore> {
    const path = (await this.loadTree()).pathTo(entryId);
    return new MemoryStore({ sessionId: this.#ids(), entries: path, clock: this.#clock, ids: this.#ids });
  }

  /** The head check, the durable write, then the handle moves on: every write of this store. */
  #write(entries: readonly SessionEntry[]): void {
    const stored = this.#shared.entries;
    if (stored.length !== this.#log.count) {
      throw new SessionConflictError(this.#shared.id, {
        expected: { entryCount: this.#log.count, entryId: this.#log.leafId },
        current: { entryCount: stored.length, entryId: stored[stored.length - 1]?.id ?? null },
      });
    }
    stored.push(...structuredClone(entries));
    this.#log.commit(entries);
  }

  get #source(): string {
    return `memory:${this.#shared.id}`;
  }

  /** A log of what is stored, sharing nothing with it. */
  #read(): SessionLog {
    return SessionLog.of(structuredClone(this.#shared.entries), this.#source);
  }

  sessionId(): string {
    return this.#shared.id;
  }

  activeModel(): ActiveModel | null {
    return this.#log.activeModel;
  }
}
