import { SessionConflictError } from '../errors.js';
import { newId } from '../ids.js';
import { newestModel, rebuildConversation } from '../rebuild.js';
import type { ActiveModel, DiskMessage, LoadedSession, SessionEntry, SessionStore } from '../session-store.js';
import { chainBatch } from './chain.js';

/** The shared state behind every handle on one in-memory session. */
export interface MemoryLog {
  readonly id: string;
  readonly entries: SessionEntry[];
  readonly ids: Set<string>;
}

export interface MemoryStoreOptions {
  sessionId?: string;
  /** Entries to start from (deep-copied), e.g. a fixture. */
  entries?: readonly SessionEntry[];
}

/**
 * Keeps a session in memory, for tests and embedders that persist elsewhere. `entries`
 * exposes what was appended, for assertions. Several handles on one session
 * (`MemoryStore.open(store)`) detect each other's appends like any other store.
 *
 * @example
 * const store = new MemoryStore();
 * const agent = new Agent({ provider }, { store });
 * await agent.submitUserMessage('hi');
 * store.entries; // [{ type: 'message', message: { role: 'user', … }, … }]
 */
export class MemoryStore implements SessionStore {
  readonly #log: MemoryLog;
  #seen = 0;
  #head: string | null = null;
  #activeModel: ActiveModel | null = null;

  constructor(options: MemoryStoreOptions | { log: MemoryLog } = {}) {
    if ('log' in options) {
      this.#log = options.log;
    } else {
      const entries = structuredClone([...(options.entries ?? [])]);
      this.#log = { id: options.sessionId ?? newId(), entries, ids: new Set(entries.map((e) => e.id)) };
    }
    this.#sync();
  }

  /** A second handle on the same session, up to date as of now. */
  static open(other: MemoryStore): MemoryStore {
    return new MemoryStore({ log: other.#log });
  }

  /** Every entry appended to the session, in order. */
  get entries(): readonly SessionEntry[] {
    return this.#log.entries;
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    if (batch.length === 0) return;
    const log = this.#log;
    if (log.entries.length !== this.#seen) {
      throw new SessionConflictError(log.id, {
        expected: { entryCount: this.#seen },
        current: { entryCount: log.entries.length, entryId: log.entries[log.entries.length - 1]?.id ?? null },
      });
    }
    const entries = chainBatch(structuredClone(batch), this.#head, log.ids);
    for (const entry of entries) {
      log.entries.push(entry);
      log.ids.add(entry.id);
    }
    this.#seen = log.entries.length;
    this.#head = entries[entries.length - 1]!.id;
    this.#activeModel = newestModel(entries) ?? this.#activeModel;
  }

  async loadConversation(): Promise<LoadedSession> {
    const rebuilt = this.#sync();
    return { conversation: rebuilt.conversation, danglingUser: rebuilt.danglingUser };
  }

  #sync(): ReturnType<typeof rebuildConversation> {
    const rebuilt = rebuildConversation(structuredClone(this.#log.entries));
    this.#seen = this.#log.entries.length;
    this.#head = rebuilt.head;
    this.#activeModel = rebuilt.activeModel;
    return rebuilt;
  }

  sessionId(): string {
    return this.#log.id;
  }

  activeModel(): ActiveModel | null {
    return this.#activeModel;
  }
}
