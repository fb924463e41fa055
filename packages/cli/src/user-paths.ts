/**
 * Paths as the user writes and reads them: `~` for the home folder, relative to the working
 * folder. `expandPath` reads one (`PANTO_HOME`, `-r FILE`); `displayPath` writes one.
 */
import { homedir as osHomedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A path the user gave: a leading `~` is the home folder, a relative one resolves against `cwd`. */
export function expandPath(value: string, cwd: string, home: string = osHomedir()): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return join(home, value.slice(2));
  return isAbsolute(value) ? value : resolve(cwd, value);
}

/** A path as the user would write it: relative inside the working folder, `~/…` in the home folder. */
export function displayPath(path: string, cwd: string, home: string): string {
  const inside = (root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
  if (inside(cwd)) return relative(cwd, path) || '.';
  if (inside(home)) return `~${sep}${relative(home, path)}`;
  return path;
}
