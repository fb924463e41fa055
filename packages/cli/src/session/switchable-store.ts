import type { ActiveModel, DiskMessage, LoadedSession, LoadOptions, SessionStore, SessionTree } from '@panto/core';
import type { OpenedSession, SessionRequest } from './open-session.js';

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

/** A session opened for the CLI: its store is a {@link SwitchableStore}. */
export type SwitchableSession = Omit<OpenedSession, 'store'> & { store: SwitchableStore };

/**
 * Opens the session as `openSession` does, then — for `--fork` with `-c`/`-r` — copies its
 * current path (to the active leaf) into a new session beside it and uses that one; and
 * wraps the store so that `/fork` can switch sessions later.
 */
export async function openSwitchableSession(
  request: SessionRequest & { fork?: boolean },
  open: (request: SessionRequest) => Promise<OpenedSession>,
): Promise<SwitchableSession> {
  const opened = await open(request);
  let store = opened.store;
  let notice = opened.notice;
  if (request.fork === true && opened.resumed) {
    const at = (await store.loadTree()).activeLeaf;
    if (at === null) {
      notice = 'the session is empty: nothing to fork, continuing it';
    } else {
      const original = store.sessionId();
      store = await store.fork(at);
      notice = `forked session ${original} into a new session ${store.sessionId()}`;
    }
  }
  const switchable = new SwitchableStore(store);
  return {
    ...opened,
    store: switchable,
    activeModel: store.activeModel(),
    sessionFile: () => switchable.sessionFile(),
    ...(notice === undefined ? {} : { notice }),
  };
}
