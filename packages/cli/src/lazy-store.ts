import {
  chainBatch,
  FSJSONLStore,
  newId,
  rebuildConversation,
  type ActiveModel,
  type DiskMessage,
  type LoadedSession,
  type SessionStore,
} from '@panto/core';

/**
 * A new filesystem session whose file is created with the first message that is not a
 * system message. Starting panto and quitting without a prompt then leaves no empty
 * session behind for `--continue` to pick or `--list` to show. The system prompt seeded at
 * start-up is held until then and written first, in order, so the file is the same as if
 * it had been written at once.
 */
export class LazyFSJSONLStore implements SessionStore {
  readonly #dir: string;
  readonly #cwd: string;
  readonly #id: string;
  #store: FSJSONLStore | undefined;
  #created: FSJSONLStore | undefined;
  #pending: DiskMessage[][] = [];

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
    if (this.#store) return this.#store.appendMessages(batch);
    if (batch.every((record) => record.type === 'message' && record.message.role === 'system')) {
      // Check the batch as the real store will, so a bad one fails now, not later.
      chainBatch(batch, null, new Set(this.#pending.flat().map((record) => record.id)));
      this.#pending.push(structuredClone([...batch]));
      return;
    }
    const store = await this.#create();
    await store.appendMessages(batch);
  }

  async loadConversation(): Promise<LoadedSession> {
    if (this.#store) return this.#store.loadConversation();
    const rebuilt = rebuildConversation(chainBatch(this.#pending.flat(), null, new Set()));
    return { conversation: rebuilt.conversation, danglingUser: rebuilt.danglingUser };
  }

  sessionId(): string {
    return this.#id;
  }

  activeModel(): ActiveModel | null {
    return this.#store?.activeModel() ?? null;
  }

  /** Creates the file and writes what was held; a failure part-way is picked up by the next append. */
  async #create(): Promise<FSJSONLStore> {
    if (this.#created === undefined) {
      // The header says when the session began: when its first (held) entry was made.
      const first = this.#pending[0]?.[0];
      this.#created = await FSJSONLStore.create(this.#dir, {
        cwd: this.#cwd,
        sessionId: this.#id,
        ...(first === undefined ? {} : { clock: () => new Date(first.timestamp) }),
      });
    }
    while (this.#pending.length > 0) {
      await this.#created.appendMessages(this.#pending[0]!);
      this.#pending.shift();
    }
    this.#store = this.#created;
    return this.#created;
  }
}
