/**
 * What an A2A message asks for: a prompt — in a new context (a new session) or in one of the
 * caller's — or, in a task waiting for approval, the decisions on its waiting calls.
 */
import type { Message } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ApprovalDecision, PendingApproval } from '@panto/core/agent-kit';
import { approvalsBody, messageBody, parse } from '../api/request-schemas.js';
import { textOf } from './a2a-parts.js';
import type { TaskSpan } from './task-view.js';
import { spanState } from './task-view.js';

/** The text of a prompt: every text part of the message, a newline between (checked as `POST …/messages` checks `text`). */
export function promptOf(message: Message): string {
  const { text, other } = textOf(message.parts);
  if (other > 0) throw malformed('a prompt takes text parts only: a file or data part is not read', 'parts');
  return parse('body', messageBody, { text }).text;
}

/** The message's role must be the user's: an agent's message is no prompt. */
export function checkRole(message: Message): void {
  if (message.role !== Role.ROLE_USER) throw malformed('message.role: must be ROLE_USER', 'role');
}

/**
 * The decisions a message in a task waiting for approval carries: a data part
 * `{ "decisions": [{ tool_call_id, decision, reason? }] }` (as `POST …/approvals` takes them), or
 * a text part `approve` / `deny`, which decides every waiting call. A task that is not waiting
 * takes no message: a running one is busy, an ended one is done (`UnsupportedOperationError`).
 */
export function decisionsOf(message: Message, span: TaskSpan): ApprovalDecision[] {
  if (span.pending.length === 0) {
    const { state } = spanState(span);
    const why = span.running ? 'it is working' : `it has ended (${stateName(state)}); send a new message in its context`;
    throw new UnsupportedOperationError({ message: `task ${span.taskId} takes no message: ${why}`, metadata: { code: 'task_not_waiting' } });
  }
  const data = message.parts.flatMap((part) => (part.content?.$case === 'data' ? [part.content.value as unknown] : []));
  if (data.length > 0) {
    if (data.length > 1) throw malformed('one data part with the decisions, not more', 'parts');
    const decisions = (data[0] as { decisions?: unknown } | null)?.decisions;
    return parse('body', approvalsBody, { decisions }).decisions.map(({ tool_call_id, decision, reason }) => ({
      tool_call_id,
      decision,
      ...(reason === undefined ? {} : { reason }),
    }));
  }
  const word = textOf(message.parts).text.trim().toLowerCase();
  if (word !== 'approve' && word !== 'deny') {
    throw malformed('the task waits for approval: answer "approve" or "deny", or a data part {"decisions":[…]}', 'parts');
  }
  return everyCall(span.pending, word);
}

function everyCall(pending: readonly PendingApproval[], decision: 'approve' | 'deny'): ApprovalDecision[] {
  return pending.map(({ toolCall }) => ({ tool_call_id: toolCall.id, decision }));
}

function stateName(state: number): string {
  return ['unspecified', 'submitted', 'working', 'completed', 'failed', 'canceled', 'input-required', 'rejected', 'auth-required'][state] ?? 'unknown';
}

function malformed(message: string, field: string): RequestMalformedError {
  return new RequestMalformedError({ message, metadata: { code: 'invalid_message', status: '400', field } });
}
