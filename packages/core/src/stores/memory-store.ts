import { SessionConflictError } from '../errors.js';
import { newId } from '../ids.js';
import { SessionLog } from '../session-log.js';
import type { ActiveModel, DiskMessage, LoadedSession, SessionEntry, SessionStore } from '../session-store.js';

/** The shared state behind every handle on one in-memory session: its "storage". */
export interface MemoryLog {
  readonly id: string;
  readonly entries: SessionEntry[];
}

export interface MemoryStoreOptions {
  sessionId?: string;
  /** Entries to start from (deep-copied), e.g. a fixture or a session read from elsewhere. */
  entries?: readonly SessionEntry[];
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
  /** The session as this handle last saw it. */
  #log: SessionLog;

  constructor(options: MemoryStoreOptions | { log: MemoryLog } = {}) {
    this.#shared =
      'log' in options
        ? options.log
        : { id: options.sessionId ?? newId(), entries: structuredClone([...(options.entries ?? [])]) };
    this.#log = this.#read();
  }

  /** A second handle on the same session, up to date as of now. */
  static open(other: MemoryStore): MemoryStore {
    return new MemoryStore({ log: other.#shared });
  }

  /** Every entry appended to the session, in order. */
  get entries(): readonly SessionEntry[] {
    return this.#shared.entries;
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    if (batch.length === 0) return;
    const stored = this.#shared.entries;
    if (stored.length !== this.#log.count) {
      throw new SessionConflictError(this.#shared.id, {
        expected: { entryCount: this.#log.count, entryId: this.#log.leafId },
        current: { entryCount: stored.length, entryId: stored[stored.length - 1]?.id ?? null },
      });
    }
    const entries = this.#log.chain(structuredClone(batch));
    stored.push(...structuredClone(entries));
    this.#log.commit(entries);
  }

  async loadConversation(): Promise<LoadedSession> {
    this.#log = this.#read();
    return this.#log.load();
  }

  /** A log of what is stored, sharing nothing with it. */
  #read(): SessionLog {
    return SessionLog.of(structuredClone(this.#shared.entries), `memory:${this.#shared.id}`);
  }

  sessionId(): string {
    return this.#shared.id;
  }

  activeModel(): ActiveModel | null {
    return this.#log.activeModel;
  }
}
