/**
 * The Claude Agent SDK's `SessionStore` seam, as structural types — copied from
 * `@anthropic-ai/claude-agent-sdk` 0.3.328 (`sdk.d.ts`), which is not a dependency: its package
 * brings a ~400 MB native binary along, and these few types are all an adapter needs. The
 * SDK's own `SessionStore` accepts any object of this shape (see docs/adapters.md).
 */

/** Where a transcript is: a project, a session, and a subagent's `subpath` (absent for the main transcript). */
export type SessionKey = {
  projectKey: string;
  sessionId: string;
  /** Absent for the main transcript; never the empty string. */
  subpath?: string;
};

/** One transcript line: a `type`, and JSON the adapter passes through. */
export type SessionStoreEntry = {
  type: string;
  uuid?: string;
  timestamp?: string;
  [k: string]: unknown;
};

/** The Claude Agent SDK's transcript mirror (`options.sessionStore`). */
export type SessionStore = {
  append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void>;
  load(key: SessionKey): Promise<SessionStoreEntry[] | null>;
  listSessions?(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>>;
  delete?(key: SessionKey): Promise<void>;
  listSubkeys?(key: { projectKey: string; sessionId: string }): Promise<string[]>;
};
