/** How a turn is answered, by the synchronous route and at the end of a streamed one; how a running one is shown. */
import type { Message, StepResult } from '@panto/core';
import { toHttpError, type ErrorBody, type HttpError } from '../errors.js';
import type { RunningTurn, TurnOutcome } from '../session-service.js';

/** Why a turn that did not finish stopped. */
export type IncompleteReason = 'deadline' | 'cancelled' | 'stopped' | 'provider_error' | 'max_provider_calls';

export interface TurnJson {
  messages: Message[];
  usage: StepResult['usage'];
  stop_reason: StepResult['stopReason'];
  incomplete: boolean;
  incomplete_reason?: IncompleteReason;
}

export function turnJson({ messages, step, stopRequested }: TurnOutcome, deadline: AbortSignal): TurnJson {
  const summary = { messages, usage: step.usage, stop_reason: step.stopReason, incomplete: step.incomplete };
  if (!step.incomplete) return summary;
  return { ...summary, incomplete_reason: incompleteReason(step, stopRequested, deadline) };
}

function incompleteReason(step: StepResult, stopRequested: boolean, deadline: AbortSignal): IncompleteReason {
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

/** A running turn as the API shows it (`GET /sessions/{id}`, the events, the stop); null when none runs. */
export function runningTurnJson(turn: RunningTurn | null): { running: true; started_at: string | null; stop_requested: boolean } | null {
  if (turn === null) return null;
  return { running: true, started_at: turn.startedAt === null ? null : new Date(turn.startedAt).toISOString(), stop_requested: turn.stopRequested };
}
