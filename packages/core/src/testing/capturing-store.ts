import type { ActiveModel, DiskMessage, LoadedSession, SessionStore } from '../session-store.js';
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

  loadConversation(): Promise<LoadedSession> {
    return this.inner.loadConversation();
  }

  sessionId(): string {
    return this.inner.sessionId();
  }

  activeModel(): ActiveModel | null {
    return this.inner.activeModel();
  }
}
