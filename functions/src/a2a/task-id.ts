/**
 * An A2A task's id: the session it runs in and the entry of the prompt that opened it,
 * `<session id>~<prompt entry id>`. A2A's `GetTask`, `CancelTask` and `SubscribeToTask` name a
 * task by its id alone, and a task here is read from its session's log (nothing else stores
 * it), so the id carries where to read it. `~` is in no id of the session format (see
 * `isValidId`), so the split is unambiguous; and only the caller's own sessions are read.
 */
import { isValidId } from '@panto/core/agent-kit';

const SEPARATOR = '~';

/** The task id of the turn opened by prompt entry `promptId` of session `sessionId`. */
export function taskIdOf(sessionId: string, promptId: string): string {
  return `${sessionId}${SEPARATOR}${promptId}`;
}

/** The session and prompt entry a task id names; null for a string that is no task id of ours. */
export function parseTaskId(taskId: string): { sessionId: string; promptId: string } | null {
  const parts = taskId.split(SEPARATOR);
  if (parts.length !== 2) return null;
  const [sessionId, promptId] = parts as [string, string];
  return isValidId(sessionId) && isValidId(promptId) ? { sessionId, promptId } : null;
}
