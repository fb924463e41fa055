import type { ActiveModel, AppendOptions, DiskMessage, LoadedSession, LoadOptions } from './records.js';
import type { SessionTree } from './tree.js';

/**
 * Where a session lives. The agent appends every message the moment it enters the
 * conversation; a resumed agent adopts the conversation the store rebuilds.
 *
 * Implementations must pass `describeSessionStoreConformance` from `@panto/core/testing/conformance`.
 */
export interface SessionStore {
  /**
   * Appends a batch, all or nothing, chained after this handle's head: the first record's
   * parent is the head, each next record's parent the one before it. Resolves once the
   * batch is durable. Rejects with `SessionConflictError` (nothing written) when another
   * handle appended since this one last saw the session, and with `InvalidBatchError`
   * (nothing written) for a record whose id the session already holds. An empty batch is
   * a no-op.
   */
  appendMessages(batch: readonly DiskMessage[], options?: AppendOptions): Promise<void>;
  /**
   * Rebuilds the conversation on the path to the active leaf (or to `options.at`). Also
   * brings this handle up to date: later appends chain after what this call returned (after
   * the dangling prompt's parent, when there is one, so that an answered resend becomes its
   * sibling).
   */
  loadConversation(options?: LoadOptions): Promise<LoadedSession>;
  /**
   * Reads the whole tree of the session — every entry of every branch, in log order — as it
   * is now. Changes nothing, not even where this handle's next append chains.
   */
  loadTree(): Promise<SessionTree>;
  /**
   * Makes `entryId` the active leaf without sending anything: writes a leaf entry, as an
   * append of its own (durable before it resolves; `SessionConflictError` when another
   * handle appended since this one last saw the session). Returns the conversation now
   * active, and later appends chain after it as after a load at `entryId`. Writes nothing
   * when `entryId` is already the active leaf. `EntryNotFoundError` for an id the session
   * does not hold.
   */
  switchLeaf(entryId: string): Promise<LoadedSession>;
  /**
   * Copies the path to `entryId` (root first, each entry as it is) into a new session of the
   * same kind and place, with a new id, and returns a handle on it; this session is not
   * changed. `EntryNotFoundError` for an id the session does not hold.
   */
  fork(entryId: string): Promise<SessionStore>;
  /** The session's id; the same for the life of the session and every handle on it. */
  sessionId(): string;
  /** The provider and model of the newest entry that names them, or null. */
  activeModel(): ActiveModel | null;
}
