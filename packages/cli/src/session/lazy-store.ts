import {
  FSJSONLStore,
  newId,
  NullStore,
  type ActiveModel,
  type DiskMessage,
  type LoadedSession,
  type LoadOptions,
  type SessionStore,
  type SessionTree,
} from '@panto/core';

/**
 * A new filesystem session whose file is created by its first append — so starting panto
 * and quitting without a prompt leaves no empty session behind for `--continue` to pick or
 * `--list` to show. Every append is as durable as `FSJSONLStore`'s (it is one), which is
 * why the CLI seeds the system prompt with the first prompt, not at start-up.
 */
export class LazyFSJSONLStore implements SessionStore {
  readonly #dir: string;
  readonly #cwd: string;
  readonly #id: string;
  #store: FSJSONLStore | undefined;
  #creating: Promise<FSJSONLStore> | undefined;

  constructor(dir: string, options: { cwd: string; sessionId?: string }) {
    this.#dir = dir;
    this.#cwd = options.cwd;
    this.#id = options.sessionId ?? newId();
  }

  /** The session file, once it exists. */
  getSessionFile(): string | undefined {
    return this.#store?.getSessionFile();
  }

  /** The folder the file is (or will be) created in. */
  get dir(): string {
    return this.#dir;
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    if (batch.length === 0) return;
    const store = this.#store ?? (await this.#create());
    await store.appendMessages(batch);
  }

  async loadConversation(options?: LoadOptions): Promise<LoadedSession> {
    return this.#current().loadConversation(options);
  }

  async loadTree(): Promise<SessionTree> {
    return this.#current().loadTree();
  }

  /** Before the first append there is no entry: `EntryNotFoundError`, and no file is created. */
  async switchLeaf(entryId: string): Promise<LoadedSession> {
    return this.#current().switchLeaf(entryId);
  }

  /** A new file beside this session's (before the first append there is no entry: `EntryNotFoundError`). */
  async fork(entryId: string): Promise<SessionStore> {
    return this.#current().fork(entryId);
  }

  /** The file's store once it exists; until then an empty session that writes nothing. */
  #current(): SessionStore {
    return this.#store ?? new NullStore(this.#id);
  }

  sessionId(): string {
    return this.#id;
  }

  activeModel(): ActiveModel | null {
    return this.#store?.activeModel() ?? null;
  }

  async #create(): Promise<FSJSONLStore> {
    this.#creating ??= FSJSONLStore.create(this.#dir, { cwd: this.#cwd, sessionId: this.#id });
    try {
      this.#store = await this.#creating;
    } catch (error) {
      this.#creating = undefined;
      throw error;
    }
    return this.#store;
  }
}
