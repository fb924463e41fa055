/**
 * The seam between the ACP server (this folder: the protocol, its sessions, its updates) and
 * the CLI that runs panto's agents (entry/: sandbox, folder trust, checkpoints, extensions —
 * the same start as the terminal's). entry/ implements {@link ACPHost}; nothing here knows
 * how an agent is started.
 */
import type { Message, Receiver, StepResult, ToolCallBlock } from '@panto/core';
import type { MCPServerConfig } from '@panto/core/mcp';
import type { AskApproval } from '../agent/approvals.js';

/** What a session of an ACP client is started with. */
export interface HostedSessionRequest {
  /** The session's working folder (absolute; the client's `cwd`). */
  cwd: string;
  /** The panto session to continue (`session/load`); absent: a new session. */
  sessionId?: string;
  /** The client's MCP servers. */
  mcpServers: readonly MCPServerConfig[];
  /** Asks the user through the client before a call that needs approval. */
  askApproval: AskApproval;
  /** Awaited when a tool call passed every guard and is about to run. Must not throw. */
  toolStarting: (call: ToolCallBlock) => Promise<void>;
}

/** A turn's result, with the entry id of its prompt. */
export interface HostedTurnResult extends StepResult {
  promptId: string;
}

/** A panto session an ACP client drives: one agent, its store, its sandbox. */
export interface HostedSession {
  /** The panto session id, which is the ACP `sessionId`. */
  readonly sessionId: string;
  /** The session's working folder. */
  readonly cwd: string;
  /** The conversation as it stands (what `session/load` replays). */
  messages(): readonly Message[];
  /** The resumed session's last prompt, when it was never answered (not in `messages`). */
  readonly danglingUser: string | null;
  /**
   * Stores the prompt, then runs the step; `observe` gets its events once the prompt is
   * stored. `signal` aborts it (what was committed stays). A store failure is thrown; a
   * provider failure is in the result.
   */
  turn(text: string, options: { observe: (promptId: string) => Receiver; signal: AbortSignal }): Promise<HostedTurnResult>;
  /** Stops what the session started (MCP servers, the sandbox's proxy). Never throws. */
  close(): Promise<void>;
}

/** A stored session, as `session/list` gives it. */
export interface ListedSession {
  sessionId: string;
  /** Its working folder. */
  cwd: string;
  /** Its first prompt, on one line. */
  title: string | null;
  /** When its last entry was written (ISO 8601). */
  updatedAt: string;
}

/** Starts sessions for the ACP server. */
export interface ACPHost {
  /**
   * Starts a new session, or the existing `request.sessionId` of `request.cwd`'s sessions.
   * Throws for a session that does not exist or cannot be read (its message is said to the client).
   */
  start(request: HostedSessionRequest): Promise<HostedSession>;
  /** The stored sessions of `cwd`'s folder, or of every folder; newest first. */
  list(cwd: string | undefined): Promise<ListedSession[]>;
  /** Writes a line to the log (stderr): what a terminal would have said. */
  log(line: string): void;
}
