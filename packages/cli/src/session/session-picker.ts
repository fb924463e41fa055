/** `panto -r` with no id: pick the session to resume from this folder's sessions. */
import { CliError, UsageError } from '../errors.js';
import { selectFromList } from '../ui/select-list.js';
import type { InputStream, Terminal } from '../ui/terminal.js';
import { visible } from '../visible.js';
import { age, findSessions, type ListedSession } from './list-sessions.js';

/** The label of a session in the picker: short id, age, message count, first and last prompt. */
export function pickerLabel(session: ListedSession, now: Date = new Date()): string {
  const first = session.firstPrompt === null ? '(no prompt)' : visible(session.firstPrompt);
  const last = session.lastPrompt !== null && session.lastPrompt !== session.firstPrompt ? `  …  ${visible(session.lastPrompt)}` : '';
  return `${session.shortId}  ${age(session.modified, now).padStart(4)}  ${String(session.messageCount).padStart(4)} msgs  ${first}${last}`;
}

/**
 * Shows the sessions (newest first) in a list — arrows move, typing filters on the prompts
 * and the id, Enter resumes, Esc cancels — and resolves to the one chosen, or undefined.
 */
export function pickSession(
  sessions: readonly ListedSession[],
  input: InputStream,
  output: NodeJS.WritableStream & { columns?: number },
): Promise<ListedSession | undefined> {
  const now = new Date();
  return selectFromList(input, output, {
    title: `resume which session? (${sessions.length})`,
    help: '↑↓ move · type to filter · Enter: resume · Esc: cancel',
    items: sessions.map((session) => ({
      value: session,
      label: pickerLabel(session, now),
      search: `${session.id} ${session.firstPrompt ?? ''} ${session.lastPrompt ?? ''}`,
    })),
  }).then((chosen) => chosen?.value);
}

/** The streams `pickResume` draws the picker on: stdin for keys; stdout, or stderr when stdout is not a terminal. */
export interface PickerStreams {
  stdin: InputStream;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { columns?: number };
}

/** `panto -r` without an id: the file of the session picked, or undefined when the user cancelled. */
export async function pickResume(sessionDir: string, streams: PickerStreams, terminal: Terminal): Promise<string | undefined> {
  if (streams.stdin.isTTY !== true) {
    throw new UsageError('--resume without a session id opens a picker, which needs a terminal: give the id (panto --list shows them)');
  }
  const sessions = await findSessions({ dir: sessionDir });
  if (sessions.length === 0)
    throw new CliError(`no sessions to resume in ${sessionDir} (sessions belong to the folder panto was started in; panto --list --all shows every folder's)`);
  const output = streams.stdout.isTTY ? streams.stdout : streams.stderr;
  const chosen = await pickSession(sessions, streams.stdin, output);
  if (chosen === undefined) terminal.note('nothing resumed');
  return chosen?.file;
}
