/**
 * The unreadable stand-ins the sandbox mounts over protected paths: an empty folder and an
 * empty file, both mode 000, which a process without capabilities cannot open even as their
 * owner. They live in `$PANTO_HOME/sandbox/` (hidden from commands with the rest of
 * `$PANTO_HOME`), made once and checked on each start; where that cannot be written, in a
 * folder of the temp folder removed when panto exits.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Placeholders {
  /** The folder that holds them. */
  root: string;
  folder: string;
  file: string;
}

/** The stand-ins under `dataDir`, made or repaired as needed; under `tempDir` when `dataDir` cannot hold them. */
export function placeholdersFor(dataDir: string, tempDir: string): Placeholders {
  try {
    return ensure(join(dataDir, 'sandbox'));
  } catch {
    const root = mkdtempSync(join(tempDir, 'panto-sandbox-'));
    process.once('exit', () => remove(root));
    return ensure(root);
  }
}

function ensure(root: string): Placeholders {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const placeholders = { root, folder: join(root, 'denied'), file: join(root, 'denied-file') };
  if (!isStandIn(placeholders.folder, 'folder')) {
    remove(placeholders.folder);
    mkdirSync(placeholders.folder);
    chmodSync(placeholders.folder, 0);
  }
  if (!isStandIn(placeholders.file, 'file')) {
    remove(placeholders.file);
    writeFileSync(placeholders.file, '');
    chmodSync(placeholders.file, 0);
  }
  return placeholders;
}

/** Whether `path` is an empty folder or file (not a link) of mode 000. */
function isStandIn(path: string, kind: 'folder' | 'file'): boolean {
  try {
    const info = lstatSync(path);
    if ((info.mode & 0o7777) !== 0) return false;
    if (kind === 'file') return info.isFile() && info.size === 0;
    if (!info.isDirectory()) return false;
    chmodSync(path, 0o700);
    const empty = readdirSync(path).length === 0;
    chmodSync(path, 0);
    return empty;
  } catch {
    // Gone, or not ours to inspect: not a placeholder of ours, so it is left alone.
    return false;
  }
}

function remove(path: string): void {
  try {
    chmodSync(path, 0o700);
  } catch {
    // Not there, or a file: rm copes.
  }
  rmSync(path, { recursive: true, force: true });
}
