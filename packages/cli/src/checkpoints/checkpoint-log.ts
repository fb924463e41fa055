/**
 * The record of a session's checkpoints (`$PANTO_HOME/checkpoints/<session id>/log.json`):
 * which tree was the working folder before and after each prompt, in the order they were
 * taken — and how long they are kept. Owner-only, written whole or not at all.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeWholeFile } from '../session/file-io.js';

/** Checkpoints whose last snapshot is older than this are removed (when panto next starts). */
export const RETENTION_DAYS = 30;
/** At most this many snapshots per session (two per prompt): the oldest are dropped first. */
export const MAX_RECORDS = 400;
/** At most this many bytes of objects per session: past it, the oldest half of the snapshots is dropped. */
export const MAX_STORE_BYTES = 1024 * 1024 * 1024;
/** A snapshot that would add more files than this at once is not taken (panto started in a home folder, say). */
export const MAX_FILES = 50_000;

/** One snapshot of the working folder: before a prompt ran, after its turn, or after a rewind. */
export interface CheckpointRecord {
  kind: 'before' | 'after' | 'rewind';
  /** The prompt's entry id (`before` and `after`). */
  prompt_id?: string;
  /** The prompt's first line (`before`), for lists. */
  prompt?: string;
  /** The git tree the folder was, kept by `refs/panto/<ref>`. */
  tree: string;
  ref: number;
  /** Files left out for their size. */
  skipped: string[];
  at: string;
}

export interface CheckpointLog {
  version: 1;
  session_id: string;
  /** The session file: when it is gone, so are its checkpoints. */
  session_file?: string;
  cwd: string;
  records: CheckpointRecord[];
}

export function checkpointsRoot(dataDir: string): string {
  return join(dataDir, 'checkpoints');
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The folder of a session's checkpoints; undefined for an id that cannot name a folder. */
export function sessionCheckpointDir(dataDir: string, sessionId: string): string | undefined {
  return SESSION_ID.test(sessionId) ? join(checkpointsRoot(dataDir), sessionId) : undefined;
}

export async function readLog(dir: string): Promise<CheckpointLog | undefined> {
  try {
    const log = JSON.parse(await readFile(join(dir, 'log.json'), 'utf8')) as CheckpointLog;
    return log.version === 1 && Array.isArray(log.records) ? log : undefined;
  } catch {
    // Missing or not a log of this version: the folder holds no checkpoints this panto can use.
    return undefined;
  }
}

export async function writeLog(dir: string, log: CheckpointLog): Promise<void> {
  await writeWholeFile(join(dir, 'log.json'), Buffer.from(`${JSON.stringify(log)}\n`));
}

/**
 * Removes the checkpoints of sessions whose file is gone, and those not added to for
 * {@link RETENTION_DAYS}. Never throws; returns the session ids removed.
 */
export async function pruneCheckpoints(dataDir: string, now = Date.now()): Promise<string[]> {
  const root = checkpointsRoot(dataDir);
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    // No checkpoints folder yet (or it cannot be read): nothing to prune.
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = join(root, name);
    const log = await readLog(dir);
    const last = log?.records.at(-1)?.at;
    // A folder that cannot be read has no age: it is left alone (undefined is never stale).
    const lastTime = last === undefined ? (await stat(dir).catch(() => undefined))?.mtimeMs : Date.parse(last);
    const stale = lastTime !== undefined && now - lastTime > RETENTION_DAYS * 24 * 3600 * 1000;
    // The session file is gone (or unreadable to us): its checkpoints can never be rewound to.
    const orphaned = log?.session_file !== undefined && (await stat(log.session_file).catch(() => undefined)) === undefined;
    if (!stale && !orphaned) continue;
    // Pruning is best effort: what is not removed now is tried again at the next start.
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}
