import { decodeSession } from '@panto/core/store-kit';
import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { committedPart, isFile, writeWholeFile } from './file-io.js';

/** Where resumed sessions are written: this folder's session folder, and the root of every folder's. */
export interface SessionPlaces {
  /** This working folder's session folder (`--session-dir`, or `$PANTO_HOME/sessions/<folder>`). */
  sessionDir: string;
  /** `$PANTO_HOME/sessions`: every working folder's session folder is in it. */
  sessionsRoot: string;
}

/**
 * The session file that `panto -r <file>` continues. A file in a session folder is a
 * session: it is continued in place. Any other file — an `/export`, an S3 export of a
 * DynamoDB session — is never written to:
 * - when the session it holds (by the id in its header) is in this folder's session folder,
 *   or in another folder's, that session is continued;
 * - otherwise it is imported: copied (its committed part) to `<sessionDir>/<id>.jsonl`, and
 *   the copy is continued. Resuming the same export again then finds that copy.
 *
 * Returns the file to open and, when it is not the one given, a notice saying why.
 */
export async function placeResumedFile(file: string, places: SessionPlaces): Promise<{ file: string; notice?: string }> {
  const path = resolve(file);
  if (isInside(path, places.sessionDir) || isInside(path, places.sessionsRoot) || !(await isFile(path))) return { file: path };
  const bytes = await readFile(path);
  const decoded = decodeSession(bytes, path);
  const id = decoded.header.id;
  const name = `${id}.jsonl`;

  const here = join(places.sessionDir, name);
  const existing = (await isFile(here)) ? here : await findInOtherFolders(places.sessionsRoot, name);
  if (existing !== undefined) {
    return {
      file: existing,
      notice: `${path} is an export of session ${id}: continuing the session itself (${existing}); the export is left as it is`,
    };
  }
  await writeWholeFile(here, committedPart(bytes, decoded), { flag: 'wx' });
  return {
    file: here,
    notice: `imported ${path} as session ${id} of this folder (${here}); the file itself is left as it is`,
  };
}

async function findInOtherFolders(root: string, name: string): Promise<string | undefined> {
  let folders: string[];
  try {
    folders = await readdir(root);
  } catch {
    // No session folders (or they cannot be read): nothing to find elsewhere.
    return undefined;
  }
  for (const folder of folders.sort()) {
    const candidate = join(root, folder, name);
    if (await isFile(candidate)) return candidate;
  }
  return undefined;
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
