import type { ToolCallBlock } from '@panto/core';
import type { MCPServerConfig } from '@panto/core/mcp';
import type { AskApproval } from '../agent/approvals.js';
import type { SwitchableSession } from '../session/switchable-store.js';
import type { Terminal } from '../ui/terminal.js';
import type { CliOptions } from './args.js';
import type { CliEnvironment, RunPlaces } from './cli-environment.js';

/** What the agent of a run is started from. */
export interface AgentStart {
  options: CliOptions;
  environment: CliEnvironment;
  places: RunPlaces;
  terminal: Terminal;
  session: SwitchableSession;
  /** The system prompt in force (with the AGENTS.md files). */
  systemPrompt: string;
  /** The AGENTS.md files in it (absolute paths). */
  contextFiles: readonly string[];
  /** Whether this is a `-p` run. */
  print: boolean;
  /** The ACP client the run serves, which stands in for the terminal: nothing is asked on (or read from) stdin. */
  client?: ClientHooks;
}

/** What an ACP client brings to a session's agent. */
export interface ClientHooks {
  /** Asks the user, through the client, before a call that needs approval. Contract as `AskApproval`. */
  askApproval: AskApproval;
  /** Called (and awaited) when a tool call has passed every guard and is about to run. Must not throw. */
  toolStarting: (call: ToolCallBlock) => Promise<void>;
  /** The client's MCP servers, started beside the configured ones (a name they share: the client's wins). */
  mcpServers: readonly MCPServerConfig[];
}
