import { findMostRecentSession, FSJSONLStore, MemoryStore, NullStore, SessionNotFoundError, type ActiveModel, type SessionStore } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CliError } from '../errors.js';
import { expandPath } from '../user-paths.js';
import { isFile } from './file-io.js';
import { LazyFSJSONLStore } from './lazy-store.js';
import { findSessions } from './list-sessions.js';
import { namesId, resolveSession, sessionQuery } from './short-id.js';
import { placeResumedFile } from './resume-file.js';

/** Which session to run, from `-c` / `-r` / `--no-session`. */
export interface SessionRequest {
  continue: boolean;
  resume?: string;
  noSession: boolean;
}

/** A session ready to hand to the agent. */
export interface OpenedSession {
  /** The store the agent persists to (resume it with `Agent.resume` when `resumed`). */
  store: SessionStore;
  /** Whether an existing session is to be continued. */
  resumed: boolean;
  /** The provider and model the resumed session last used. */
  activeModel: ActiveModel | null;
  /** The session file, once it exists; undefined with `--no-session` and before a new session's first prompt. */
  sessionFile(): string | undefined;
  /** Something to tell the user before starting (e.g. "no session to continue"). */
  notice?: string;
}

/**
 * Opens the session the command line asks for:
 * - `-r VALUE`: VALUE is a file when one exists at that path (relative to `cwd`) or when it
 *   contains a path separator; otherwise an id, a short id or a unique id prefix in `sessionDir`.
 * - `-c`: the most recently changed session in `sessionDir`; a new one when there is none.
 * - neither: a new session in `sessionDir`, created with the first prompt.
 * - `--no-session`: a NullStore; with `-c`/`-r` a MemoryStore holding the session's entries,
 *   so it is continued and nothing is written back.
 *
 * @throws CliError for a session that is not found (saying where the sessions are listed), AmbiguousSessionIdError,
 *   InvalidSessionIdError, SessionCorruptError
 */
export async function openSession(request: SessionRequest, context: { cwd: string; sessionDir: string; sessionsRoot?: string }): Promise<OpenedSession> {
  let file: string | undefined;
  let notice: string | undefined;
  if (request.resume !== undefined) {
    file = await resumeTarget(request.resume, context);
    // A file outside the session folders (an export) is never appended to: see placeResumedFile.
    if (!request.noSession && context.sessionsRoot !== undefined) {
      const placed = await placeResumedFile(file, {
        sessionDir: context.sessionDir,
        sessionsRoot: context.sessionsRoot,
      });
      file = placed.file;
      notice = placed.notice;
    }
  } else if (request.continue) {
    const recent = await findMostRecentSession(context.sessionDir);
    if (recent) file = recent.file;
    else notice = `no earlier session in ${context.sessionDir}; starting a new one`;
  }

  if (file === undefined) {
    if (request.noSession) {
      return {
        store: new NullStore(),
        resumed: false,
        activeModel: null,
        sessionFile: () => undefined,
        ...(notice ? { notice } : {}),
      };
    }
    const store = new LazyFSJSONLStore(context.sessionDir, { cwd: context.cwd });
    return {
      store,
      resumed: false,
      activeModel: null,
      sessionFile: () => store.getSessionFile(),
      ...(notice ? { notice } : {}),
    };
  }

  if (request.noSession) {
    const { header, entries } = decodeSession(await readFile(file), file);
    const store = new MemoryStore({ sessionId: header.id, entries });
    return {
      store,
      resumed: true,
      activeModel: store.activeModel(),
      sessionFile: () => undefined,
      ...(notice ? { notice } : {}),
    };
  }
  const fsStore = await FSJSONLStore.open(file);
  return {
    store: fsStore,
    resumed: true,
    activeModel: fsStore.activeModel(),
    sessionFile: () => fsStore.getSessionFile(),
    ...(notice ? { notice } : {}),
  };
}

async function resumeTarget(value: string, context: { cwd: string; sessionDir: string; sessionsRoot?: string }): Promise<string> {
  const path = expandPath(value, context.cwd);
  if (value.includes('/') || value.includes('\\') || (await isFile(path))) return path;
  try {
    return (await resolveSession(context.sessionDir, value)).file;
  } catch (error) {
    if (error instanceof SessionNotFoundError && context.sessionsRoot !== undefined) {
      const elsewhere = await sessionsOfOtherFolders(value, {
        sessionDir: context.sessionDir,
        sessionsRoot: context.sessionsRoot,
      });
      if (elsewhere !== undefined) throw new CliError(elsewhere, { cause: error });
    }
    if (error instanceof SessionNotFoundError) {
      throw new CliError(`${error.message}: panto --list shows this folder's sessions (--list --all every folder's)`, { cause: error });
    }
    throw error;
  }
}

/**
 * When `value` names no session of this folder but names one of another folder (`--list
 * --all` shows them all), says where it is and how to resume it; undefined otherwise.
 */
async function sessionsOfOtherFolders(value: string, context: { sessionDir: string; sessionsRoot: string }): Promise<string | undefined> {
  const wanted = sessionQuery(value);
  if (wanted === '') return undefined;
  const here = resolve(context.sessionDir);
  // Other folders' sessions only widen the search for a hint; unreadable ones are simply not offered.
  const matches = (await findSessions({ sessionsRoot: context.sessionsRoot }).catch(() => [])).filter(
    (session) => dirname(resolve(session.file)) !== here && namesId(session.id, wanted),
  );
  const [only] = matches;
  if (only === undefined) return undefined;
  if (matches.length > 1) {
    return `session not found in this folder: ${value}; it matches ${matches.length} sessions of other folders (${matches.map((session) => `${session.id} in ${session.folder ?? dirname(session.file)}`).join(', ')})`;
  }
  const where = only.folder === undefined ? `panto -r ${only.file}` : `cd ${only.folder} && panto -r ${only.id}`;
  return `session not found in this folder: ${value} is a session of ${only.folder ?? dirname(only.file)}; resume it there: ${where}`;
}
