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
}
