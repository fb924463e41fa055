/**
 * Finding filesystem sessions: free functions of the FSJSONLStore module, not part of the
 * SessionStore interface (a database backend lists sessions its own way).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { AmbiguousSessionIdError, InvalidSessionIdError, SessionNotFoundError } from '../errors.js';
import { decodeSession } from '../session/decoder.js';
import { previewLine } from '../session/tree.js';

export interface SessionInfo {
  id: string;
  file: string;
  /** From the header. */
  created: Date;
  /** The file's modification time: when the last entry was appended. */
  modified: Date;
  /** Message entries in the file (every branch). */
  messageCount: number;
  /** The first user prompt, on one line, cut to 100 characters; null when there is none. */
  firstPrompt: string | null;
  /** The newest user prompt (of any branch), the same way; null when there is none. */
  lastPrompt: string | null;
}

/** Characters of a prompt's preview in a listing. */
const PROMPT_PREVIEW_LENGTH = 100;

/** Every readable session in `dir`, most recently modified first; [] when `dir` is missing. */
export async function listSessions(dir: string): Promise<SessionInfo[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  // A file that is not a readable session (half written, foreign, corrupt header) is left out of the listing, not a failure of it.
  const infos = await Promise.all(names.filter((name) => name.endsWith('.jsonl')).map((name) => sessionInfo(join(dir, name)).catch(() => null)));
  return infos.filter((info): info is SessionInfo => info !== null).sort((a, b) => b.modified.getTime() - a.modified.getTime() || b.id.localeCompare(a.id));
}

/** The most recently modified session in `dir`, or null. */
export async function findMostRecentSession(dir: string): Promise<SessionInfo | null> {
  return (await listSessions(dir))[0] ?? null;
}

/**
 * The session in `dir` whose id is `idOrPrefix` or starts with it.
 * @throws InvalidSessionIdError for an empty value, a path separator or `..`
 * @throws SessionNotFoundError when nothing matches
 * @throws AmbiguousSessionIdError when a prefix matches several sessions
 */
export async function resolveSessionId(dir: string, idOrPrefix: string): Promise<SessionInfo> {
  const value = idOrPrefix.endsWith('.jsonl') ? idOrPrefix.slice(0, -'.jsonl'.length) : idOrPrefix;
  if (value === '') throw new InvalidSessionIdError(idOrPrefix, 'it is empty');
  if (value.includes('/') || value.includes('\\')) throw new InvalidSessionIdError(idOrPrefix, 'it contains a path separator');
  if (value.includes('..')) throw new InvalidSessionIdError(idOrPrefix, 'it contains ".."');
  if (/[\u0000-\u001f]/.test(value)) throw new InvalidSessionIdError(idOrPrefix, 'it contains a control character');
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SessionNotFoundError(idOrPrefix, { cause: error });
    throw error;
  }
  const ids = names.map((name) => basename(name, '.jsonl'));
  const matches = ids.includes(value) ? [value] : ids.filter((id) => id.startsWith(value));
  if (matches.length === 0) throw new SessionNotFoundError(idOrPrefix);
  if (matches.length > 1) throw new AmbiguousSessionIdError(idOrPrefix, matches.sort());
  return sessionInfo(join(dir, `${matches[0]!}.jsonl`));
}

/**
 * Reads what a listing shows of one session file, through the same decoder a load uses (a
 * file that would not load is not listed as if it would: it throws `SessionCorruptError`).
 */
export async function sessionInfo(file: string): Promise<SessionInfo> {
  const [bytes, stats] = await Promise.all([readFile(file), stat(file)]);
  const { header, entries } = decodeSession(bytes, file);
  let messageCount = 0;
  let firstPrompt: string | null = null;
  let lastPrompt: string | null = null;
  for (const entry of entries) {
    if (entry.type !== 'message') continue;
    messageCount++;
    if (entry.message.role !== 'user') continue;
    lastPrompt = entry.message.content;
    firstPrompt ??= lastPrompt;
  }
  return {
    id: header.id,
    file,
    created: new Date(header.timestamp),
    modified: stats.mtime,
    messageCount,
    firstPrompt: firstPrompt === null ? null : previewLine(firstPrompt, PROMPT_PREVIEW_LENGTH),
    lastPrompt: lastPrompt === null ? null : previewLine(lastPrompt, PROMPT_PREVIEW_LENGTH),
  };
}
