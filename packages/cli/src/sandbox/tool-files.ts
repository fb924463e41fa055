/**
 * The files in the working folder that other programs run or trust on their own, without the
 * user asking for the folder's code to run: `.git` (hooks, `core.fsmonitor`, a `gitdir:` file
 * pointing at such a config — the user's next `git status` runs them), `.envrc` and
 * `mise.toml` (direnv's and mise's hooks, on `cd`),
 * `.vscode/` and `.idea/` (tasks and run configurations), `.mcp.json` and `.claude/` (other
 * agents' servers and hooks), and panto's own `.panto/`. Anywhere in the folder, not only at
 * its top: a tool run in a subfolder finds the nearest one. A sandboxed command may not write
 * them: those that exist are mounted read-only, and those it creates are removed when it ends
 * (everything it started ends with it, so nothing can recreate them behind panto's back).
 * The list is in docs/cli.md ("Files other programs run"); keep the two in step.
 */
import { chmodSync, type Dirent, lstatSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';

/** The names, wherever they are in the folder. */
export const TOOL_FILE_NAMES: readonly string[] = [
  '.git',
  '.gitmodules',
  '.hg',
  '.envrc',
  'mise.toml',
  '.mise.toml',
  '.vscode',
  '.idea',
  '.devcontainer',
  '.mcp.json',
  '.claude',
  '.cursor',
  '.panto',
];

/**
 * pnpm's virtual store (`node_modules/.pnpm`): its files are hard links into pnpm's store,
 * shared by every project of the user, so a write through one would change them all. Read-only
 * as a whole (one mount; `pnpm install` cannot run in the sandbox anyway: its store is outside).
 */
const PNPM_STORE = `node_modules${sep}.pnpm`;

const NAMES = new Set(TOOL_FILE_NAMES);

/*
 * PACKAGE_FOLDER: `node_modules` is not walked. What is in it is the package manager's: packages
 * ship `.vscode/` and `.git` of their own, a read-only mount over one would make `npm install`
 * and `rm -rf node_modules` fail (a mount point cannot be removed), and no program runs them on
 * its own (VS Code's git leaves node_modules out). It also keeps the walk to the project's own
 * folders: 159 of this repository's 3,300.
 */

/** How long after its last change a folder's `ctime` is trusted to move with the next change. */
const SETTLE_MS = 100;

/** One entry found: a tool file, or pnpm's store. */
export interface ToolFile {
  path: string;
  /** A link whose target does not exist (nothing to mount; a command may create the target). */
  dangling: boolean;
}

interface Folder {
  ino: number;
  ctime: number;
  /** Subfolders to walk (not links, not tool files). */
  folders: string[];
  found: string[];
}

/**
 * Finds the tool files of one folder, walking it again before and after each command. Each
 * folder read is remembered with its change time (`ctime`, which a process cannot set back,
 * unlike `mtime`): a folder whose entries did not change since costs one `lstat`, so a walk of a
 * folder that did not change reads no folder at all. The kernel stamps changes with a coarse
 * clock (a tick of a few ms), so a folder changed less than {@link SETTLE_MS} before it was
 * read is read again next time: a change in the same tick would not move its `ctime`.
 */
export class ToolFileScanner {
  readonly root: string;
  readonly #folders = new Map<string, Folder>();

  constructor(root: string) {
    this.root = root;
  }

  /** The tool files now, in walk order. */
  scan(): ToolFile[] {
    const found: string[] = [];
    const seen = new Set<string>();
    this.#walk(this.root, found, seen, Date.now() - SETTLE_MS);
    for (const path of this.#folders.keys()) if (!seen.has(path)) this.#folders.delete(path);
    return found.map((path) => ({ path, dangling: isDangling(path) }));
  }

  #walk(folder: string, found: string[], seen: Set<string>, settled: number): void {
    const info = lstatSync(folder, { throwIfNoEntry: false });
    if (info === undefined || !info.isDirectory()) return;
    seen.add(folder);
    let entry = this.#folders.get(folder);
    if (entry === undefined || entry.ino !== info.ino || entry.ctime !== info.ctimeMs) {
      entry = { ino: info.ino, ctime: info.ctimeMs, ...readFolder(folder) };
      // Remembered only once settled: see the class's note on the kernel's clock.
      if (info.ctimeMs < settled) this.#folders.set(folder, entry);
      else this.#folders.delete(folder);
    }
    for (const path of entry.found) found.push(path);
    for (const child of entry.folders) this.#walk(child, found, seen, settled);
  }
}

function readFolder(folder: string): { folders: string[]; found: string[] } {
  const folders: string[] = [];
  const found: string[] = [];
  const entries = listFolder(folder);
  if (entries === undefined) return { folders, found };
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (NAMES.has(entry.name)) found.push(path);
    else if (entry.name === 'node_modules' && entry.isDirectory()) {
      // The package manager's, not walked (see PACKAGE_FOLDER); only pnpm's store in it counts.
      const store = join(folder, PNPM_STORE);
      if (lstatSync(store, { throwIfNoEntry: false })?.isDirectory()) found.push(store);
    } else if (entry.isDirectory()) folders.push(path);
  }
  return { folders, found };
}

/**
 * The entries of a folder. One a command made searchable but not readable (`chmod 100 sub`:
 * `cd sub && git status` works, listing it does not) is made readable to its owner first: a
 * `.git` in it must not go unseen.
 */
function listFolder(folder: string): Dirent[] | undefined {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    // Gone, or not a folder now: nothing in it to find.
    if ((error as NodeJS.ErrnoException).code !== 'EACCES') return undefined;
  }
  try {
    chmodSync(folder, (lstatSync(folder).mode & 0o7777) | 0o500);
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    // Not ours to change (another user's folder): no command of ours could have written in it.
    return undefined;
  }
}

function isDangling(path: string): boolean {
  try {
    statSync(path);
    return false;
  } catch {
    // Nothing where it leads (or it is gone): nothing to mount.
    return true;
  }
}

/** Where a mount over `path` lands: the link followed when it is one (a mount follows it too). */
export function mountTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Dangling: the mount is skipped for it (see ToolFile.dangling).
    return path;
  }
}

/** `rm -rf`, also through folders a command made unreadable; whether it is gone. */
export function removeForcefully(path: string): boolean {
  try {
    rmSync(path, { recursive: true, force: true });
    return true;
  } catch {
    // A folder the command made unreadable or unwritable: opened up, then tried again.
    makeRemovable(path);
  }
  try {
    rmSync(path, { recursive: true, force: true });
    return true;
  } catch {
    // Reported to the model and the user as not removed.
    return false;
  }
}

function makeRemovable(path: string): void {
  try {
    if (!lstatSync(path).isDirectory()) return;
    chmodSync(path, 0o700);
    for (const name of readdirSync(path)) makeRemovable(join(path, name));
  } catch {
    // What cannot be changed is reported by the second rm.
  }
}
