/** `panto -r` with no id: pick the session to resume from this folder's sessions. */
import type { InputStream } from '../ui/line-input.js';
import { selectFromList } from '../ui/select-list.js';
import { age, type ListedSession } from './list-sessions.js';

/** The label of a session in the picker: short id, age, message count, first and last prompt. */
export function pickerLabel(session: ListedSession, now: Date = new Date()): string {
  const first = session.firstPrompt ?? '(no prompt)';
  const last = session.lastPrompt !== null && session.lastPrompt !== session.firstPrompt ? `  …  ${session.lastPrompt}` : '';
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
