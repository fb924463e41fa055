import { Conversation } from '../conversation.js';
import { EntryNotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import type { ActiveModel, DiskMessage, LoadedSession, LoadOptions } from '../session/records.js';
import type { SessionStore } from '../session/store.js';
import { SessionTree } from '../session/tree.js';

/**
 * Persists nothing: appends succeed and are dropped, loading gives an empty conversation
 * and an empty tree; there is no entry to switch to or fork at (`EntryNotFoundError`).
 * The agent's default store, for embedders who opt out of persistence.
 */
export class NullStore implements SessionStore {
  readonly #id: string;

  constructor(id: string = newId()) {
    this.#id = id;
  }

  async appendMessages(_batch: readonly DiskMessage[]): Promise<void> {}

  async loadConversation(options: LoadOptions = {}): Promise<LoadedSession> {
    if (typeof options.at === 'string') throw new EntryNotFoundError(options.at);
    return { conversation: new Conversation(), danglingUser: null, entries: [], at: null };
  }

  async loadTree(): Promise<SessionTree> {
    return SessionTree.of([]);
  }

  async switchLeaf(entryId: string): Promise<LoadedSession> {
    throw new EntryNotFoundError(entryId);
  }

  async fork(entryId: string): Promise<NullStore> {
    throw new EntryNotFoundError(entryId);
  }

  sessionId(): string {
    return this.#id;
  }

  activeModel(): ActiveModel | null {
    return null;
  }
}
