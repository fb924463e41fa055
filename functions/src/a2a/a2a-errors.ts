/**
 * The service's failures as A2A errors. `errors.ts` chooses each failure's HTTP status and
 * code, as for every route; here that answer becomes the JSON-RPC error A2A names for it,
 * with panto's code, status and `Retry-After` in the error's `google.rpc.ErrorInfo` metadata.
 * A defect's message is `toHttpError`'s public one, never the cause's.
 */
import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { type HttpError, toHttpError } from '../errors.js';

/** `error` as an A2A error: kept when it is one, else mapped from its HTTP answer (see `toHttpError`). */
export function toA2AError(error: unknown, report: (failure: HttpError, what: string, error: unknown) => void, what: string): A2AError {
  if (error instanceof A2AError) return error;
  const failure = toHttpError(error);
  report(failure, what, error);
  const { code, message, field } = failure.body.error;
  const metadata: Record<string, string> = {
    code,
    status: String(failure.status),
    ...(field === undefined ? {} : { field }),
    ...(failure.retryAfterSeconds === null ? {} : { retry_after: String(failure.retryAfterSeconds) }),
  };
  const options = { message, metadata, cause: error };
  if (failure.status === 404) return new TaskNotFoundError(options);
  if (failure.status === 400 || failure.status === 422) return new RequestMalformedError(options);
  // 409: the session is busy, waits for a decision, or the decision does not fit — not now, in this state.
  if (failure.status === 409) return new UnsupportedOperationError(options);
  // 429 (limits), 502/503 (the model or a backend), 500: the base error, an internal error on the wire.
  return new A2AError(options);
}

/** A message or task id the caller may not name: the same answer as for one that does not exist. */
export function taskNotFound(taskId: string): A2AError {
  return new TaskNotFoundError({ message: `task not found: ${taskId.slice(0, 300)}`, metadata: { code: 'task_not_found', status: '404' } });
}
