/** What a store trades in: the records the agent appends, the entries they become, what a load gives back. */
import type { Conversation } from '../conversation.js';
import type { Message, Usage } from '../messages.js';

/**
 * What a reader adds to an entry it could load only in part; never written to a log. A line
 * nested deeper than panto's limit for JSON (see `MAX_JSON_DEPTH`) is loaded with its
 * too-deep tool-call inputs as `{}` and without fields the format does not define, and says
 * so here, so that a session stored before the limit existed still reads.
 */
export interface ReadNote {
  /** Why part of the entry was not loaded. Absent for an entry loaded whole. */
  unreadable?: string;
}

/** A message entering the conversation, as the agent hands it to a store. */
export interface DiskMessageRecord extends ReadNote {
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
export interface DiskCompactionRecord extends ReadNote {
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
export type RecordEntry = DiskMessage & {
  /** The entry this one follows; null for the first entry of the session. */
  parent_id: string | null;
};

/**
 * A switch of the active branch (format version 2): from this entry on, the session
 * continues from `parent_id` — an earlier entry — instead of from the entry written before
 * it. A store writes one for `switchLeaf`; it holds no message, and no entry ever follows
 * it (the next entry chains to `parent_id`, the entry it stands for).
 */
export interface LeafEntry extends ReadNote {
  type: 'leaf';
  id: string;
  /** The entry the session continues from. */
  parent_id: string;
  /** ISO-8601 time of the switch. */
  timestamp: string;
}

/**
 * One line of the session log: a message or compaction chained to its parent, or a
 * {@link LeafEntry} that moves the active branch. Entries form a tree through `parent_id`.
 */
export type SessionEntry = RecordEntry | LeafEntry;

/** A session read back from a store. */
export interface LoadedSession {
  /** The path to the active leaf (or to the entry `at` named), as one linear conversation. */
  conversation: Conversation;
  /**
   * The text of a trailing user prompt that no assistant answered (a crash or quit right
   * after it was submitted), excluded from `conversation`. Null when there is none.
   */
  danglingUser: string | null;
  /**
   * The entry each message of `conversation` was rebuilt from (same order and length), for
   * its id and timestamp; null for a tool result the rebuild synthesized for an interrupted
   * tool call (it is not in the log).
   */
  entries: readonly (RecordEntry | null)[];
  /**
   * The entry the loaded path ends at — the active leaf, or the entry `at` named (a leaf
   * entry resolved to the entry it stands for), the dangling prompt included. Null for an
   * empty path (an empty session, or `at: null`).
   */
  at: RecordEntry | null;
}

/** Where {@link SessionStore.loadConversation} rebuilds the conversation. */
export interface LoadOptions {
  /**
   * Continue from this entry instead of the active leaf: the conversation is the path to
   * it, and this handle's next append chains after it (a new branch once written; nothing
   * is written by the load). `null` continues from the root: an empty conversation whose
   * next entry starts a new root. The dangling-prompt rule applies as at the active leaf.
   * `EntryNotFoundError` when the session holds no such entry.
   */
  at?: string | null;
}

/** What the writer says of a batch it appends. */
export interface AppendOptions {
  /**
   * The writer's last write for now: the end of a step (its final answer, or what an error or
   * a stop left) or a compaction. A store that holds a lease for the work may give it up in
   * the same write (DynamoStore's store for a turn does); others ignore it.
   */
  last?: boolean;
}

export interface ActiveModel {
  provider: string;
  model: string;
}
