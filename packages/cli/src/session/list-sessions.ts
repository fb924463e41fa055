import { listSessions, type SessionInfo } from '@panto/core';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT_OK } from '../errors.js';
import { folderFromSessionFolderName } from './session-dir.js';
import { shortIds } from './short-id.js';
import type { Terminal } from '../ui/terminal.js';
import { visible } from '../visible.js';

/** A session as the list and the picker show it. */
export interface ListedSession extends SessionInfo {
  /** The unique end of its id among those listed (see `shortIds`). */
  shortId: string;
  /** The working folder it belongs to (only when several folders are listed; undefined when its folder name was shortened). */
  folder?: string;
}

/** The sessions of one session folder, or of every folder under `sessionsRoot` — newest first, with short ids. */
export async function findSessions(where: { dir: string } | { sessionsRoot: string }): Promise<ListedSession[]> {
  let sessions: (SessionInfo & { folder?: string })[];
  if ('dir' in where) {
    sessions = await listSessions(where.dir);
  } else {
    let folders: string[] = [];
    try {
      folders = await readdir(where.sessionsRoot);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const perFolder = await Promise.all(
      folders.map(async (name) => {
        const folder = folderFromSessionFolderName(name);
        return (await listSessions(join(where.sessionsRoot, name))).map((session) => ({
          ...session,
          ...(folder === undefined ? {} : { folder }),
        }));
      }),
    );
    sessions = perFolder.flat().sort((a, b) => b.modified.getTime() - a.modified.getTime() || b.id.localeCompare(a.id));
  }
  const short = shortIds(sessions.map((session) => session.id));
  return sessions.map((session) => ({ ...session, shortId: short.get(session.id)! }));
}

/** `panto --list [--all]`: one line per session, newest first. */
export async function listCommand(options: { sessionDir: string; sessionsRoot: string; all: boolean; cwd: string; terminal: Terminal }): Promise<number> {
  const { terminal } = options;
  const sessions = await findSessions(options.all ? { sessionsRoot: options.sessionsRoot } : { dir: options.sessionDir });
  if (sessions.length === 0) {
    terminal.note(options.all ? `no sessions (in ${options.sessionsRoot})` : `no sessions for ${options.cwd} (in ${options.sessionDir})`);
    return EXIT_OK;
  }
  const idWidth = Math.max(2, ...sessions.map((session) => session.shortId.length));
  const folderWidth = Math.max(6, ...sessions.map((session) => (session.folder ?? '?').length));
  const folder = (text: string) => (options.all ? `  ${text.padEnd(folderWidth)}` : '');
  terminal.result(`${'ID'.padEnd(idWidth)}  ${'MODIFIED'.padEnd(16)}  ${'MSGS'.padStart(5)}${folder('FOLDER')}  FIRST PROMPT`);
  for (const session of sessions) {
    terminal.result(
      `${session.shortId.padEnd(idWidth)}  ${localTime(session.modified)}  ${String(session.messageCount).padStart(5)}${folder(visible(session.folder ?? '?'))}  ${session.firstPrompt === null ? '(no prompt)' : visible(session.firstPrompt)}`,
    );
  }
  return EXIT_OK;
}

export function localTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** How long ago, in one short word: `now`, `5m`, `3h`, `2d`, `7w`. */
export function age(date: Date, now: Date = new Date()): string {
  const minutes = Math.floor((now.getTime() - date.getTime()) / 60_000);
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h`;
  const days = Math.floor(hours / 24);
  return days < 14 ? `${days}d` : `${Math.floor(days / 7)}w`;
}
