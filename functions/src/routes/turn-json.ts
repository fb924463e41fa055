/** How a turn is answered, by the synchronous route and at the end of a streamed one. */
import type { StepResult } from '@panto/core';
import { toHttpError, type ErrorBody, type HttpError } from '../errors.js';
import type { IncompleteReason, TurnJson } from '../api/response-schemas.js';
import type { TurnOutcome } from '../services/turn-service.js';
import { approvalJson, messageJson, pendingApprovalJson } from './session-json.js';

/**
 * A turn's answer: the messages it stored, its usage and stop reason; why it did not finish;
 * the calls it paused on (`awaiting_approval`); the decisions that resumed it.
 */
export function turnJson({ opened, records, step, stopRequested, budgetStopped }: TurnOutcome, deadline: AbortSignal): TurnJson {
  return {
    messages: records.map(messageJson),
    usage: step.usage,
    stop_reason: step.stopReason,
    incomplete: step.incomplete,
    ...(step.incomplete ? { incomplete_reason: incompleteReason(step, stopRequested, deadline, budgetStopped) } : {}),
    ...(step.pendingApprovals === undefined ? {} : { pending_approvals: step.pendingApprovals.map(pendingApprovalJson) }),
    ...(opened.type === 'approval' ? { approval: approvalJson(opened) } : {}),
  };
}

function incompleteReason(step: StepResult, stopRequested: boolean, deadline: AbortSignal, budgetStopped: boolean): IncompleteReason {
  if (step.stopReason === 'aborted' && budgetStopped) return 'budget';
  if (step.stopReason === 'aborted') return stopRequested ? 'stopped' : deadline.aborted ? 'deadline' : 'cancelled';
  if (step.stopReason === 'error') return 'provider_error';
  return 'max_provider_calls';
}

/** The status a turn that failed (rather than stopped early) answers with; a provider failure is a 502. */
export function stepFailure(step: StepResult): HttpError | undefined {
  return step.stopReason === 'error' && step.error ? toHttpError(step.error) : undefined;
}

/** What a streamed turn's `end` event says of a failure: what the synchronous route would answer. */
export function endFailure(failure: HttpError): { status: number; error: ErrorBody['error']; retry_after?: number } {
  return {
    status: failure.status,
    error: failure.body.error,
    ...(failure.retryAfterSeconds === null ? {} : { retry_after: failure.retryAfterSeconds }),
  };
}
