/**
 * The seam between the bash tool and the OS sandbox its commands run in: the modes (named as
 * Codex names them), what a command may ask for beyond them, and the interface a sandbox
 * backend implements (bubblewrap on Linux: ./bubblewrap.ts).
 */

/** `--sandbox`: how much a command may touch without asking. */
export type SandboxMode = 'read-only' | 'workspace-write' | 'off';

export const SANDBOX_MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'off'];

/**
 * What a command may need beyond the sandbox's limits, as the model names it in the bash
 * call's `needs`: `network` (any network access), `write` (writes anywhere, `.git` and `.panto`
 * included; secrets stay unreadable), `full-access` (the command runs outside the sandbox).
 * Each one is approved by the user (or `--yolo`) before the command runs.
 */
export type SandboxNeed = 'network' | 'write' | 'full-access';

export const SANDBOX_NEEDS: readonly SandboxNeed[] = ['network', 'write', 'full-access'];

/** What a need means, in the words the approval question and the tool's description use. */
export const NEED_DESCRIPTIONS: Readonly<Record<SandboxNeed, string>> = {
  network: 'network access',
  write: 'writes outside the working folder (and to .git, .panto)',
  'full-access': 'running outside the sandbox (secrets, network, any write)',
};

/** How a sandboxed command reaches the network. */
export type NetworkAccess =
  /** None: its own network namespace with only a loopback device. */
  | { type: 'none' }
  /** The host's network, all of it (`--allow-network`, or an approved `network` need). */
  | { type: 'all' }
  /** Only the domains of the user's settings, through panto's filtering proxy. */
  | { type: 'domains'; allowedDomains: readonly string[]; proxySocket: string };

/** The program to spawn in place of `bash -c command`. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  /** Variables the sandbox sets, on top of the command's environment. */
  env: Record<string, string>;
  /**
   * Called once, after the command and everything it started have ended (also on a timeout or
   * an abort): undoes what a command may not leave behind. Resolves to notes for the tool
   * result (empty when there is nothing to say); must not reject.
   */
  settle?: () => Promise<string[]>;
}

/**
 * An OS sandbox for the bash tool's commands. Implementations must keep the command and
 * everything it starts inside the limits, including processes that leave its process group,
 * and must not show it panto's own process (its environment holds the provider keys).
 */
export interface CommandSandbox {
  readonly mode: Exclude<SandboxMode, 'off'>;
  /** The needs every command has without asking (`network` under `--allow-network`). */
  readonly standing: ReadonlySet<SandboxNeed>;
  /**
   * The folders of the user's a command may write to without asking, absolute: the working
   * folder under `workspace-write` (its temp folder is the session's own), none under
   * `read-only`. A checkpoint of what a command could change covers these.
   */
  writableRoots(): readonly string[];
  /** Whether a write to `path` (absolute) stays inside the limits, as the write and edit tools ask. */
  allowsWrite(path: string): boolean;
  /** Whether a command could read `path` (absolute): not a secret the sandbox hides, as the read tool asks. */
  allowsRead(path: string): boolean;
  /** The limits in a few sentences, for the model (the bash tool's description) and `/sandbox`-like notes. */
  describe(): string;
  /** `bash -c command` wrapped to run inside the sandbox, with `granted` needs lifted (never `full-access`). */
  wrap(command: string, granted: ReadonlySet<SandboxNeed>): SandboxedCommand;
}

/**
 * The needs of a call the user granted beyond the standing ones, by tool call id: the
 * approval hook records them, the bash tool takes them when the call runs. A call nobody
 * granted anything gets nothing (fail closed), so a bash tool given to an agent without
 * panto's approvals never lifts a limit.
 */
export class SandboxGrants {
  readonly #granted = new Map<string, ReadonlySet<SandboxNeed>>();

  grant(toolCallId: string, needs: Iterable<SandboxNeed>): void {
    this.#granted.set(toolCallId, new Set(needs));
  }

  /** The needs granted to this call (once: a second take of the same id gets none). */
  take(toolCallId: string): ReadonlySet<SandboxNeed> {
    const granted = this.#granted.get(toolCallId) ?? new Set<SandboxNeed>();
    this.#granted.delete(toolCallId);
    return granted;
  }
}

/** The `needs` of a bash call's input: the known names, deduplicated; throws on anything else. */
export function parseNeeds(value: unknown): Set<SandboxNeed> {
  if (value === undefined || value === null) return new Set();
  if (!Array.isArray(value)) throw new TypeError(`"needs" must be an array of ${SANDBOX_NEEDS.map((need) => `"${need}"`).join(', ')}`);
  const needs = new Set<SandboxNeed>();
  for (const item of value) {
    if (typeof item !== 'string' || !(SANDBOX_NEEDS as readonly string[]).includes(item)) {
      throw new TypeError(`"needs" may hold only ${SANDBOX_NEEDS.map((need) => `"${need}"`).join(', ')}; got ${JSON.stringify(item)}`);
    }
    needs.add(item as SandboxNeed);
  }
  return needs;
}

/** The needs of `requested` that `standing` does not already cover. */
export function needsBeyond(requested: ReadonlySet<SandboxNeed>, standing: ReadonlySet<SandboxNeed>): SandboxNeed[] {
  return SANDBOX_NEEDS.filter((need) => requested.has(need) && !standing.has(need));
}
