/**
 * A session's title when its first prompt failed. The first prompt names a session (the
 * store sets the title with it); when that turn failed before the model answered, the next
 * message goes on without it — the failed prompt's sibling, per the session format's
 * dangling-prompt rule — and names the session instead, unless it was renamed meanwhile.
 */
import { titleOf, updateSession } from '@panto/aws/service';
import type { Message } from '@panto/core/agent-kit';
import { reportUnseen, type SessionContext } from './session-context.js';

/** What the session is named and what its next prompt follows, as the turn found them before writing the prompt. */
export interface TitleBefore {
  /** The session's title; null while it has none. */
  title: string | null;
  /** The prompt the session ends in that never got its answer (`danglingUser`); null when there is none. */
  dangling: string | null;
  /** The conversation the prompt follows. */
  conversation: readonly Message[];
}

/**
 * The title `prompt` gives the session, or null when the title stays: only when the session
 * ends in a failed first prompt that named it — no prompt before it on its path, and the
 * title still what that prompt gave (not a rename).
 */
export function titleAfterFailedFirstPrompt({ title, dangling, conversation }: TitleBefore, prompt: string): string | null {
  if (title === null || dangling === null || conversation.some((message) => message.role === 'user')) return null;
  if (title !== titleOf(dangling)) return null;
  const next = titleOf(prompt);
  return next === title ? null : next;
}

/**
 * Names the session `title` while it is still named `was` — a rename in the meantime (seen by
 * this process or not) stands. One conditional UpdateItem on META. Never rejects: a title is a
 * label, so a failure is reported and the turn goes on (its prompt is stored and its lease held by then).
 */
export async function retitle(context: SessionContext, owner: string, sessionId: string, { was, title }: { was: string; title: string }): Promise<void> {
  try {
    await updateSession({ client: context.dynamo, tableName: context.tableName, owner, sessionId, title, ifTitle: was });
  } catch (error) {
    reportUnseen(context, `could not retitle session ${sessionId}`, error);
  }
}
