import type { ActiveModel, DiskMessage, LoadedSession, LoadOptions } from '../session/records.js';
import type { SessionStore } from '../session/store.js';
import type { SessionTree } from '../session/tree.js';
import { MemoryStore } from '../stores/memory-store.js';

/**
 * Wraps a store and records every batch handed to it, in order, for assertions on what
 * the agent persisted and when. `failNextAppend` makes the next append reject (nothing
 * is written), to test what the agent does when the store fails.
 */
export class CapturingStore implements SessionStore {
  /** Every batch that reached the inner store, deep-copied. */
  readonly batches: DiskMessage[][] = [];
  readonly inner: SessionStore;
  #failure: Error | undefined;
  /** Called after each batch is recorded (e.g. to observe ordering against provider calls). */
  onAppend: ((batch: readonly DiskMessage[]) => void) | undefined;

  constructor(inner: SessionStore = new MemoryStore()) {
    this.inner = inner;
  }

  /** Every record appended, flattened. */
  get records(): DiskMessage[] {
    return this.batches.flat();
  }

  failNextAppend(error: Error = new Error('injected append failure')): void {
    this.#failure = error;
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    const failure = this.#failure;
    if (failure) {
      this.#failure = undefined;
      throw failure;
    }
    await this.inner.appendMessages(batch);
    if (batch.length > 0) this.batches.push(structuredClone([...batch]));
    this.onAppend?.(batch);
  }

  loadConversation(options?: LoadOptions): Promise<LoadedSession> {
    return this.inner.loadConversation(options);
  }

  loadTree(): Promise<SessionTree> {
    return this.inner.loadTree();
  }

  /** Switches the inner store's leaf (not a batch: `batches` does not record it). */
  switchLeaf(entryId: string): Promise<LoadedSession> {
    return this.inner.switchLeaf(entryId);
  }

  /** Forks the inner store, and captures the fork's batches too (in a capturing store of its own). */
  async fork(entryId: string): Promise<CapturingStore> {
    return new CapturingStore(await this.inner.fork(entryId));
  }

  sessionId(): string {
    return this.inner.sessionId();
  }

  activeModel(): ActiveModel | null {
    return this.inner.activeModel();
  }
}
