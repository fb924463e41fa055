/** What an `Agent` is built with, and what its calls take and give back. */
import type { Clock, IdGenerator } from '../ids.js';
import type { Usage } from '../messages.js';
import type { Provider } from '../providers/provider.js';
import type { RecordEntry } from '../session/records.js';
import type { SessionStore } from '../session/store.js';
import type { BeforeToolCall, ToolRegistry } from '../tool.js';

export interface AgentConfig {
  /** The model the agent talks to; `agent.provider` can be changed later (e.g. `/model`). */
  provider: Provider;
  /** The tools offered to the model; tools may be registered after the agent is built. */
  tools?: ToolRegistry;
  /**
   * Consulted before each tool call runs; a refusal becomes an error result the model sees
   * (see {@link BeforeToolCall}). Extensions' guards reach the agent through it.
   */
  beforeToolCall?: BeforeToolCall;
  /** Provider calls one `runStep` may make before it stops (incomplete). Default 50. */
  maxProviderCalls?: number;
  /** Instructions for `compact()`; the default asks for a summary a model can continue from. */
  compactionPrompt?: string;
  /** Clock for entry timestamps (freeze it in tests). */
  clock?: Clock;
  /** Entry id generator (UUIDv7 by default; fix it in tests). */
  ids?: IdGenerator;
}

export interface AgentOptions {
  /**
   * Where a new session persists; a NullStore when absent. To continue a session a store
   * already holds, use {@link Agent.resume}, which reads it.
   */
  store?: SessionStore;
}

/** Where an agent's conversation now ends, after a resume, a `continueFrom` or a `switchLeaf`. */
export interface ResumePoint {
  /**
   * The trailing prompt nobody answered (a crash or quit right after it was sent), kept out
   * of the conversation; offer it for sending again. Null when there is none.
   */
  danglingUser: string | null;
  /**
   * The entry the conversation ends at (the dangling prompt, when there is one): the active
   * leaf, or the entry asked for. Null at the root (an empty session, or `null` asked for).
   */
  at: RecordEntry | null;
}

export interface ResumeOptions {
  /**
   * Continue from this entry instead of the active leaf: the conversation is the path to it
   * and the next message the agent writes starts a new branch there (see `LoadOptions.at`);
   * nothing is written until then. `null` continues from the root.
   */
  at?: string | null;
}

export interface RunOptions {
  /** Aborts the step: the HTTP request is cancelled, running tools are told, and what was committed stays persisted. */
  signal?: AbortSignal;
}

export interface CompactionResult {
  summary: string;
  usage: Usage;
}
