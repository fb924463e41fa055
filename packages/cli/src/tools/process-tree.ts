import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * The variable that marks every process a command starts: the command's environment
 * carries its run id here, and children inherit it even when they leave the command's
 * process group or session. A space-separated list, so that a command run by a panto that
 * itself runs inside a panto command carries both runs' ids.
 */
export const RUN_ID_VARIABLE = 'PANTO_BASH_RUN';

/** The processes of one command: its shell and everything that carries its run id. */
export interface ProcessTree {
  /**
   * The command's shell, spawned `detached` so that it leads its own process group. Its
   * pid must still name it: kill a tree only before its shell has been reaped.
   */
  readonly pid: number;
  /** The id this run added to {@link RUN_ID_VARIABLE}. */
  readonly runId: string;
}

/** A fresh run id. */
export function newRunId(): string {
  return randomUUID();
}

/** The environment with `runId` added to {@link RUN_ID_VARIABLE}, keeping the ids already there. */
export function withRunId(env: Readonly<Record<string, string>>, runId: string): Record<string, string> {
  const outer = env[RUN_ID_VARIABLE];
  return { ...env, [RUN_ID_VARIABLE]: outer ? `${outer} ${runId}` : runId };
}

/** Rounds of scanning after which the search stops even if a fork storm keeps making processes. */
const MAX_ROUNDS = 20;

/**
 * SIGKILLs everything the command started: its process group, every process whose
 * environment carries the run id (those that called `setsid`, and orphans re-parented to
 * init), and every descendant of those and of the shell by parent links (those that
 * scrubbed their environment but still hang below a marked process). Everything found is
 * stopped first and killed at the end: a stopped process cannot fork, and its children
 * keep their parent links while the search goes on. It scans again until a scan finds
 * nobody new. A process that scrubbed its environment *and* lost its marked parents
 * escapes. Where there is no `/proc` (macOS) only the process group is killed.
 * Synchronous, so that it can run in an `exit` handler; never throws.
 *
 * @example
 * const runId = newRunId();
 * const child = spawn('bash', ['-c', command], { detached: true, env: withRunId(env, runId) });
 * killProcessTree({ pid: child.pid, runId });
 */
export function killProcessTree(tree: ProcessTree): void {
  if (!hasProc()) {
    signal(-tree.pid, 'SIGKILL');
    return;
  }
  signal(-tree.pid, 'SIGSTOP');
  const found = new Set<number>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const fresh = treeMembers(tree).filter((pid) => !found.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      found.add(pid);
      signal(pid, 'SIGSTOP');
    }
  }
  signal(-tree.pid, 'SIGKILL');
  for (const pid of found) signal(pid, 'SIGKILL');
}

/** The live pids of the tree, from one pass over `/proc`; never panto itself or its ancestors. */
function treeMembers(tree: ProcessTree): number[] {
  const parents = new Map<number, number>();
  const children = new Map<number, number[]>();
  const reached = new Set<number>([tree.pid]);
  for (const pid of livePids()) {
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    parents.set(pid, parent);
    const siblings = children.get(parent);
    if (siblings) siblings.push(pid);
    else children.set(parent, [pid]);
    if (carriesRunId(pid, tree.runId)) reached.add(pid);
  }
  // Below the shell and below every marked process, by parent links.
  const pending = [...reached];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    for (const child of children.get(pid) ?? []) {
      if (reached.has(child)) continue;
      reached.add(child);
      pending.push(child);
    }
  }
  // A command cannot have started these; the guard keeps a wrong match from taking panto down.
  let ancestor: number | undefined = process.pid;
  for (let depth = 0; ancestor !== undefined && depth <= parents.size; depth++) {
    reached.delete(ancestor);
    ancestor = parents.get(ancestor);
  }
  reached.delete(1);
  return [...reached];
}

let procPresent: boolean | undefined;

function hasProc(): boolean {
  procPresent ??= existsSync('/proc/self/stat');
  return procPresent;
}

function livePids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    // No /proc (not Linux): no process tree to walk; the group kill still applies.
    return [];
  }
}

/** The parent of a live process; undefined when it is gone or a zombie (killed, awaiting its reaper). */
function parentOf(pid: number): number | undefined {
  const stat = readProc(pid, 'stat')?.toString('latin1');
  if (stat === undefined) return undefined;
  // "pid (comm) state ppid …", where comm may itself contain spaces and parentheses.
  const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (state === 'Z' || state === 'X' || parent === undefined) return undefined;
  return Number(parent);
}

function carriesRunId(pid: number, runId: string): boolean {
  // Unreadable (another user's process, unless we are root) counts as unmarked. The run id is
  // random, so a readable process of someone else's never matches by chance.
  const environ = readProc(pid, 'environ');
  if (environ === undefined) return false;
  const prefix = `${RUN_ID_VARIABLE}=`;
  for (const entry of environ.toString('latin1').split('\0')) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length).split(' ').includes(runId);
  }
  return false;
}

function readProc(pid: number, file: 'stat' | 'environ'): Buffer | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`);
  } catch {
    // The process has exited (or is not ours to read): nothing to learn of it.
    return undefined;
  }
}

function signal(pid: number, name: 'SIGSTOP' | 'SIGKILL'): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already, or not ours to kill.
  }
}
