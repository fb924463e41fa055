import type { ActiveModel, DiskMessage, LoadedSession, LoadOptions, SessionStore, SessionTree } from '@panto/core';

/**
 * The CLI's handle on its session: a store that passes every call to the session in use,
 * which `/fork` can replace by the new session it writes — so the agent, extensions and
 * commands keep one store object while the session under it changes. It also remembers
 * where the conversation now ends (`position`), which is where `/fork` copies up to.
 */
export class SwitchableStore implements SessionStore {
  #target: SessionStore;
  #position: string | null | undefined;

  constructor(target: SessionStore) {
    this.#target = target;
  }

  /** The session in use. */
  get target(): SessionStore {
    return this.#target;
  }

  /** Uses `store` from now on (a fork of this session, already holding its entries). */
  switchTo(store: SessionStore): void {
    this.#target = store;
    this.#position = undefined;
  }

  /**
   * The entry the conversation now ends at — after the last append, load or switch through
   * this handle; null at the root; undefined before any of them (ask the tree's active leaf).
   */
  get position(): string | null | undefined {
    return this.#position;
  }

  /** The session file of the store in use, when it has one. */
  sessionFile(): string | undefined {
    const target = this.#target as SessionStore & { getSessionFile?: () => string | undefined };
    return typeof target.getSessionFile === 'function' ? target.getSessionFile() : undefined;
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    await this.#target.appendMessages(batch);
    const last = batch.at(-1);
    if (last !== undefined) this.#position = last.id;
  }

  async loadConversation(options?: LoadOptions): Promise<LoadedSession> {
    const loaded = await this.#target.loadConversation(options);
    this.#position = loaded.at?.id ?? null;
    return loaded;
  }

  loadTree(): Promise<SessionTree> {
    return this.#target.loadTree();
  }

  async switchLeaf(entryId: string): Promise<LoadedSession> {
    const loaded = await this.#target.switchLeaf(entryId);
    this.#position = loaded.at?.id ?? null;
    return loaded;
  }

  fork(entryId: string): Promise<SessionStore> {
    return this.#target.fork(entryId);
  }

  sessionId(): string {
    return this.#target.sessionId();
  }

  activeModel(): ActiveModel | null {
    return this.#target.activeModel();
  }
}
