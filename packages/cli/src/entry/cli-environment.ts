import type { AskApproval } from '../agent/approvals.js';
import type { ProviderFactory } from '../agent/provider-choice.js';
import type { SandboxSupport } from '../sandbox/detect.js';
import type { AskTrust } from '../trust/folder-trust.js';
import type { LineInput } from '../ui/line-input.js';
import type { InputStream, OutputStream } from '../ui/terminal.js';

/** Everything the CLI touches of the world, so that tests can give it their own. */
export interface CliEnvironment {
  /** The arguments after `node panto`. */
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdin: InputStream;
  stdout: OutputStream & NodeJS.WritableStream;
  stderr: OutputStream & NodeJS.WritableStream;
  /** The user's home folder (default `os.homedir()`). */
  homedir?: string;
  /** Builds providers (default: `createProvider` of @panto/core). */
  providerFactory?: ProviderFactory;
  /**
   * Subscribes to Ctrl-C and returns the unsubscribe; default: the process's SIGINT. The
   * handler is called once per Ctrl-C and never throws.
   */
  onInterrupt?: (handler: () => void) => () => void;
  /** Leaves at once, on a second Ctrl-C while an abort is under way. Default: exit 130. */
  forceExit?: () => void;
  /** Where interactive lines come from (default: the terminal, or piped stdin). */
  lineInput?: LineInput;
  /** Asks the user before bash/write/edit run (default: on the terminal, when stdin is one). */
  askApproval?: AskApproval;
  /** Asks "Trust this folder?" (default: on the terminal, when stdin is one). */
  askTrust?: AskTrust;
  /** What this machine has to sandbox commands with (default: looked for, once per run). */
  sandboxSupport?: SandboxSupport;
}

/** Where a run keeps and finds its files: from the working folder, `--session-dir` and `$PANTO_HOME`. */
export interface RunPlaces {
  /** The working folder (absolute). */
  cwd: string;
  /** The user's home folder. */
  home: string;
  /** `$PANTO_HOME` (default `~/.panto`). */
  dataDir: string;
  /** This folder's session folder: `--session-dir`, else `$PANTO_HOME/sessions/<folder name>`. */
  sessionDir: string;
  /** `$PANTO_HOME/sessions`, which holds every folder's session folder. */
  sessionsRoot: string;
}
