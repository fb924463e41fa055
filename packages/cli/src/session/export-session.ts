import { newId, SESSION_FORMAT_VERSION, type Conversation, type DiskMessage } from '@panto/core';
import { decodeSession, encodeBatch, encodeHeader, SessionLog } from '@panto/core/store-kit';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CliError } from '../errors.js';
import { committedPart, isDirectory, writeWholeFile } from './file-io.js';

export interface ExportSource {
  sessionId: string;
  /** The session file, when the session is saved: exported byte for byte (its committed part). */
  sessionFile: string | undefined;
  /** Used when there is no file (`--no-session`, or before the first prompt). */
  conversation: Conversation;
  cwd: string;
  /** Where the export goes when no target is given (as `<sessionId>.jsonl`); default `cwd`. */
  exportsDir?: string;
  now?: () => Date;
}

export interface ExportResult {
  path: string;
  bytes: number;
  /** Entries written (the header not counted). */
  entries: number;
}

/**
 * Writes the session as JSONL in the session format to `target` (relative to `cwd`; a
 * folder gets `<sessionId>.jsonl` inside it; default `<sessionId>.jsonl` in `exportsDir`,
 * else in `cwd`). A saved session is copied as it is on disk — the
 * same bytes, every entry, every branch, without a torn tail. An unsaved one is encoded
 * from the live conversation (a new chain of entries). The file is written whole or not at
 * all (a temporary file renamed into place).
 */
export async function exportSessionFile(source: ExportSource, target?: string): Promise<ExportResult> {
  const name = `${source.sessionId}.jsonl`;
  let path = target === undefined ? resolve(source.exportsDir ?? source.cwd, name) : resolve(source.cwd, target);
  // A folder (one that exists, or a path ending in /) gets the file inside it, as cp does.
  if (target !== undefined && (/[/\\]$/.test(target) || (await isDirectory(path)))) path = join(path, name);
  if (source.sessionFile !== undefined && resolve(source.sessionFile) === path) {
    throw new CliError(`${path} is the session file itself; choose another path`);
  }
  let text: Buffer;
  let entries: number;
  if (source.sessionFile !== undefined) {
    const bytes = await readFile(source.sessionFile);
    const decoded = decodeSession(bytes, source.sessionFile);
    text = committedPart(bytes, decoded);
    entries = decoded.entries.length;
  } else {
    const now = (source.now ?? (() => new Date()))();
    const records = conversationRecords(source.conversation, now);
    const header = encodeHeader({
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id: source.sessionId,
      timestamp: now.toISOString(),
      cwd: source.cwd,
    });
    // One entry per line, each its own batch: the chain is what matters, not the grouping.
    text = Buffer.from(
      header +
        SessionLog.empty()
          .chain(records)
          .map((entry) => encodeBatch([entry]))
          .join(''),
    );
    entries = records.length;
  }
  await writeWholeFile(path, text);
  return { path, bytes: text.length, entries };
}

function conversationRecords(conversation: Conversation, now: Date): DiskMessage[] {
  const timestamp = now.toISOString();
  return conversation.messages.map((message): DiskMessage => {
    if (message.role === 'compaction') {
      const { role: _role, ...fields } = message;
      return { type: 'compaction', id: newId(), timestamp, ...fields };
    }
    return { type: 'message', id: newId(), timestamp, message };
  });
}
