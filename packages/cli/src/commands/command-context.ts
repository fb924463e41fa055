/** What slash commands work on, and the shape of a command line; implemented by the CLI's RunningAgent. */
import type { Agent, ExtensionHost } from '@panto/core';
import type { MCPServers } from '@panto/core/mcp';
import type { ProviderChoice } from '../agent/provider-choice.js';
import type { Checkpoints } from '../checkpoints/checkpoints.js';
import type { CommandSandbox } from '../sandbox/policy.js';
import type { FolderTrust } from '../trust/folder-trust.js';
import type { InputStream, Terminal } from '../ui/terminal.js';

/** Where the CLI looks for extensions and MCP configs (shown when it found none). */
export interface LookupPlaces {
  extensionDirs: readonly string[];
  mcpFiles: readonly string[];
}

/** What commands work on. */
export interface CommandContext {
  readonly agent: Agent;
  readonly terminal: Terminal;
  readonly cwd: string;
  /** The session file, when the session is saved and the file exists. */
  sessionFile(): string | undefined;
  /** Why there is no file, when there is none ("--no-session", "created with the first prompt"). */
  readonly unsavedReason: string | undefined;
  /** The provider settings in force. */
  providerChoice(): ProviderChoice;
  /** Builds the provider for `settings` and gives it to the agent; throws when it cannot be built. */
  switchProvider(settings: ProviderChoice): void;
  /** Runs `task` so that Ctrl-C aborts it through the signal. */
  interruptible<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** The loaded extensions, whose commands run here too. */
  readonly extensions: ExtensionHost;
  /** The MCP servers, when any is configured. */
  readonly mcp: MCPServers | undefined;
  /** The working folder's trust, for `/trust`; absent: `/trust` says there is none to show. */
  readonly trust?: FolderTrust | undefined;
  /** The sandbox bash commands run in (for `/session`); absent: none. */
  readonly sandbox?: CommandSandbox | undefined;
  readonly places: LookupPlaces;
  /** The AGENTS.md files in the system prompt (absolute paths); none when absent. */
  readonly contextFiles?: readonly string[];
  /** The environment, to tell which providers have keys; none when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The checkpoints of the working folder's files (`/rewind`, `/session`); absent: none are taken. */
  readonly checkpoints?: Checkpoints | undefined;
  /** Where `/export` writes when given no path (`$PANTO_HOME/exports`); the working folder when absent. */
  readonly exportsDir?: string | undefined;
}

export type CommandOutcome = 'continue' | 'quit';

export interface SlashCommand {
  name: string;
  /** The rest of the line, trimmed. */
  args: string;
}

/** The terminal `/tree` draws on and reads keys from; absent when input is piped. */
export interface TreeTerminal {
  input: InputStream;
  output: NodeJS.WritableStream & { columns?: number };
}

/** What the REPL does next: put `prefill` in the input line. */
export interface TreeOutcome {
  prefill?: string;
}
