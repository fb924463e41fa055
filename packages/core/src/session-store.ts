import type { Conversation } from './conversation.js';
import type { Message, Usage } from './messages.js';

export type {
  AssistantBlock,
  AssistantMessage,
  CompactionMessage,
  ImageBlock,
  JsonValue,
  Message,
  RedactedThinkingBlock,
  StopReason,
  SystemMessage,
  SystemMode,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultMessage,
  Usage,
  UserMessage,
} from './messages.js';

/** A message entering the conversation, as the agent hands it to a store. */
export interface DiskMessageRecord {
  type: 'message';
  /** UUIDv7, unique within the session. */
  id: string;
  /** ISO-8601 time the message entered the conversation. */
  timestamp: string;
  message: Exclude<Message, { role: 'compaction' }>;
}

/**
 * A compaction: the summary replaces every message before it on the path. A conversation
 * rebuilt from a path that contains one starts with the system messages before it, then
 * the summary.
 */
export interface DiskCompactionRecord {
  type: 'compaction';
  id: string;
  timestamp: string;
  summary: string;
  provider: string;
  model: string;
  usage: Usage;
  prior_usage: Usage;
}

/**
 * The neutral record every store trades in. A store need not write JSONL: a database
 * backend maps these to its rows. Stores chain them (see {@link SessionEntry}).
 */
export type DiskMessage = DiskMessageRecord | DiskCompactionRecord;

/** A record as stored: chained to its parent in the session's tree of entries. */
export type SessionEntry = DiskMessage & {
  /** The entry this one follows; null for the first entry of the session. */
  parent_id: string | null;
};

/** A session read back from a store. */
export interface LoadedSession {
  /** The path from the newest leaf, as one linear conversation. */
  conversation: Conversation;
  /**
   * The text of a trailing user prompt that no assistant answered (a crash or quit right
   * after it was submitted), excluded from `conversation`. Null when there is none.
   */
  danglingUser: string | null;
}

export interface ActiveModel {
  provider: string;
  model: string;
}

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
  appendMessages(batch: readonly DiskMessage[]): Promise<void>;
  /**
   * Rebuilds the conversation on the path from the newest leaf. Also brings this handle up
   * to date: later appends chain after what this call returned (after the dangling prompt's
   * parent, when there is one, so that an answered resend becomes its sibling).
   */
  loadConversation(): Promise<LoadedSession>;
  /** The session's id; the same for the life of the session and every handle on it. */
  sessionId(): string;
  /** The provider and model of the newest entry that names them, or null. */
  activeModel(): ActiveModel | null;
}
