import { Conversation } from '../conversation.js';
import { newId } from '../ids.js';
import type { ActiveModel, DiskMessage, LoadedSession, SessionStore } from '../session-store.js';

/**
 * Persists nothing: appends succeed and are dropped, loading gives an empty conversation.
 * The agent's default store, for embedders who opt out of persistence.
 */
export class NullStore implements SessionStore {
  readonly #id: string;

  constructor(id: string = newId()) {
    this.#id = id;
  }

  async appendMessages(_batch: readonly DiskMessage[]): Promise<void> {}

  async loadConversation(): Promise<LoadedSession> {
    return { conversation: new Conversation(), danglingUser: null };
  }

  sessionId(): string {
    return this.#id;
  }

  activeModel(): ActiveModel | null {
    return null;
  }
}
