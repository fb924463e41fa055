/**
 * Files of the working folder that are hard links to files outside it (bun's and uv's installs
 * link their caches into `node_modules` and `.venv`): a sandboxed command may write the folder,
 * and a write through such a link changes the file outside too. The sandbox cannot stop that at
 * a cost we defend (a read-only mount per file: 1,000 of them made a command 1.3 s slower here,
 * and finding them costs a `stat` of every file per command), so `/session` warns about them
 * (see docs/cli.md, "Hard links"). pnpm's store, `node_modules/.pnpm`, is mounted read-only
 * whole and left out here.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface LinkedOutside {
  /** How many files of the folder have links outside it. */
  count: number;
  /** A few of them, relative to the folder. */
  examples: string[];
  /** False when the walk stopped at its limit of files (there may be more). */
  complete: boolean;
}

/** Walks `root` (not `.git`, not `node_modules/.pnpm`) for files with more links than the folder holds; at most `limit` files looked at. */
export function filesLinkedOutside(root: string, limit = 200_000): LinkedOutside {
  const inodes = new Map<string, { nlink: number; seen: number; path: string }>();
  let looked = 0;
  const stack = [root];
  while (stack.length > 0 && looked < limit) {
    const folder = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      // Unreadable or gone: no file of it can be counted (the warning is a hint, not a guarantee).
      continue;
    }
    for (const name of names) {
      const path = join(folder, name);
      if (name === '.git' || (name === '.pnpm' && folder.endsWith('node_modules'))) continue;
      const info = lstatSync(path, { throwIfNoEntry: false });
      if (info === undefined) continue;
      if (info.isDirectory()) stack.push(path);
      else if (info.isFile()) {
        looked++;
        if (info.nlink === 1) continue;
        const key = `${info.dev}:${info.ino}`;
        const entry = inodes.get(key) ?? { nlink: info.nlink, seen: 0, path };
        entry.seen++;
        inodes.set(key, entry);
      }
    }
  }
  const outside = [...inodes.values()].filter((entry) => entry.seen < entry.nlink);
  return { count: outside.length, examples: outside.slice(0, 3).map((entry) => relative(root, entry.path)), complete: stack.length === 0 };
}
