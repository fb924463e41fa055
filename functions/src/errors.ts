/**
 * The service's errors, and the one place where any error becomes an HTTP status.
 */
import {
  AbortedError,
  AmbiguousSessionIdError,
  ApprovalDecisionError,
  ApprovalPendingError,
  EntryNotFoundError,
  InvalidSessionIdError,
  ModelAccessDeniedError,
  NothingToCompactError,
  PantoError,
  ProviderError,
  ProviderNotConfiguredError,
  redactSecrets,
  SessionConflictError,
  SessionNotFoundError,
  UnknownProviderError,
  type SessionCorruptError,
  UnsupportedModelError,
} from '@panto/core/agent-kit';
import {
  BudgetExceededError,
  InvalidCursorError,
  RateLimitedError,
  SessionBusyError,
  SessionLeaseLostError,
  SessionRestoringError,
  StopRequestedError,
  TurnNotRunningError,
  ObjectsNotDeletedError,
  UnpricedModelError,
  UnprocessedWritesError,
} from '@panto/aws/service';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The body of every error response. */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
    /** For `invalid_body` / `invalid_query`: the offending field, dotted (`text`, `limit`). */
    field?: string;
    /** For `invalid_session`: the 1-based line of the body that is not a session log line. */
    line?: number;
  };
}

/** A request the service refuses: a bad body or query, a missing token, a body too big. */
export class RequestError extends PantoError {
  readonly status: 400 | 401 | 404 | 409 | 413 | 422;
  readonly code: string;
  readonly field: string | undefined;
  readonly line: number | undefined;
  constructor(status: RequestError['status'], code: string, message: string, options?: ErrorOptions & { field?: string; line?: number }) {
    super(message, options);
    this.name = 'RequestError';
    this.status = status;
    this.code = code;
    this.field = options?.field;
    this.line = options?.line;
  }
}

/** A body or query field that fails validation. */
export function invalidField(kind: 'body' | 'query', field: string, message: string, options?: ErrorOptions): RequestError {
  return new RequestError(400, `invalid_${kind}`, field === '' ? message : `${field}: ${message}`, { ...options, field });
}

/** A body field naming an entry the session does not hold (`parent_id`, `entry_id`). */
export function unknownEntry(field: string, options?: ErrorOptions): RequestError {
  return invalidField('body', field, 'not an entry of this session', options);
}

/** Turns an `EntryNotFoundError` into a 400 naming the body field that gave the id (`.catch(asEntryField('entry_id'))`). */
export function asEntryField(field: string): (error: unknown) => never {
  return (error) => {
    throw error instanceof EntryNotFoundError ? unknownEntry(field, { cause: error }) : error;
  };
}

/**
 * A body that is not a session log (`POST /sessions/import`): the line and what is wrong
 * with it. Only the body's own words — never a server-side name for it.
 */
export function invalidSessionLog(error: SessionCorruptError, body: { joinedLines?: boolean } = {}): RequestError {
  let message = error.line === null ? error.reason : `line ${error.line}: ${error.reason}`;
  // `curl -d @file` strips a file's newlines: the log arrives as its lines run together.
  if (body.joinedLines === true && error.line === 1) {
    message +=
      ' (the body is one line of JSON objects run together: its newlines were stripped — send the file with `curl --data-binary @file`, not `-d @file`)';
  }
  return new RequestError(400, 'invalid_session', message, { cause: error, ...(error.line === null ? {} : { line: error.line }) });
}

/** No token, or a token that does not verify. The reason is kept as the cause, never sent. */
export function unauthorized(reason: string, options?: ErrorOptions): RequestError {
  return new RequestError(401, 'unauthorized', 'a valid bearer token is required', {
    ...options,
    cause: options?.cause ?? new Error(reason),
  });
}

export function payloadTooLarge(limitBytes: number): RequestError {
  return new RequestError(413, 'payload_too_large', `the request body is larger than ${limitBytes} bytes`);
}

export function routeNotFound(): RequestError {
  return new RequestError(404, 'not_found', 'no such route');
}

export interface HttpError {
  status: ContentfulStatusCode;
  body: ErrorBody;
  /** True for failures of the service itself: a defect, logged with its cause. */
  internal: boolean;
  /**
   * What failed, in a few words (`ECONNREFUSED`, `InternalServerError (HTTP 500)`), when a
   * backend — DynamoDB, S3 — is unreachable or failing: an outage, logged as one short line,
   * not as a defect. Null otherwise.
   */
  outage: string | null;
  /** Seconds for the `Retry-After` header (every 503 and 429 has one); null otherwise. */
  retryAfterSeconds: number | null;
}

/** How long a client should wait after a 503 `unavailable` (a backend outage). */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;
/** How long a client should wait after a 503 `service_unavailable` (throttled). */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;
/** How long a client should wait after a 503 `provider_unavailable` (the model provider throttled or was down, past its retries). */
export const PROVIDER_RETRY_AFTER_SECONDS = 5;
/** How long a client should wait after a 503 `session_restoring` (another request is bringing the session back from S3). */
export const RESTORING_RETRY_AFTER_SECONDS = 2;

const SESSION_NOT_FOUND = 'session not found';

/**
 * Maps any error to its HTTP status and body. This is the only place a status is chosen
 * for an error: handlers throw, and the app's error handler (or a turn that ended with an
 * error) asks here.
 */
export function toHttpError(error: unknown): HttpError {
  const reply = (status: ContentfulStatusCode, code: string, message: string, field?: string, line?: number): HttpError => ({
    status,
    // Relayed to the client: no credential a provider's (or anyone's) words quoted.
    body: { error: { code, message: redactSecrets(message), ...(field === undefined ? {} : { field }), ...(line === undefined ? {} : { line }) } },
    internal: status >= 500 && status !== 502 && status !== 503,
    outage: null,
    retryAfterSeconds: null,
  });
  if (error instanceof RequestError) return reply(error.status, error.code, error.message, error.field, error.line);
  // Unknown, foreign and malformed ids are the same answer: never reveal which.
  if (error instanceof SessionNotFoundError || error instanceof InvalidSessionIdError || error instanceof AmbiguousSessionIdError) {
    return reply(404, 'session_not_found', SESSION_NOT_FOUND);
  }
  if (error instanceof SessionBusyError) {
    return reply(409, 'session_busy', 'another turn is running on this session; nothing was written');
  }
  if (error instanceof SessionConflictError) {
    return reply(409, 'session_conflict', 'the session changed while this request ran; nothing more was written');
  }
  if (error instanceof SessionLeaseLostError) {
    return reply(
      409,
      'lease_lost',
      'this turn could not keep the session (its lease lapsed and another turn took it) and stopped; what it stored before stays',
    );
  }
  const refusal = limitRefusal(error, reply);
  if (refusal !== null) return refusal;
  if (error instanceof TurnNotRunningError) return reply(409, 'turn_not_running', 'no turn is running on this session');
  if (error instanceof StopRequestedError) return reply(409, 'stopped', 'stopped on request (POST /sessions/{id}/stop); nothing was written');
  if (error instanceof SessionRestoringError) {
    return {
      ...reply(503, 'session_restoring', 'the session is being restored from its archive by another request; retry shortly'),
      retryAfterSeconds: RESTORING_RETRY_AFTER_SECONDS,
    };
  }
  if (error instanceof NothingToCompactError) return reply(409, 'nothing_to_compact', error.message);
  if (error instanceof ApprovalPendingError || error instanceof ApprovalDecisionError) return approvalReply(error, reply);
  // A provider this server has no key for: the same answer whether a new session asks for it
  // or an existing session's turn needs it (then change its model, or configure the key).
  if (error instanceof ProviderNotConfiguredError) return reply(422, 'provider_not_configured', error.message, 'provider');
  if (error instanceof UnknownProviderError) return reply(400, 'invalid_body', `provider: ${error.message}`, 'provider');
  if (error instanceof UnsupportedModelError) return reply(400, 'invalid_body', `model: ${error.message}`, 'model');
  if (error instanceof InvalidCursorError) return reply(400, 'invalid_query', 'cursor: not a cursor this API returned', 'cursor');
  // A person must enable the model or fix the role's policy: the request is fine, this server cannot serve it.
  if (error instanceof ModelAccessDeniedError) return reply(422, 'model_access_denied', error.message, 'model');
  if (error instanceof ProviderError && providerUnavailable(error)) {
    return {
      ...reply(503, 'provider_unavailable', `the model provider is throttling or unavailable, still after retries; retry shortly: ${error.message}`),
      retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS,
    };
  }
  if (error instanceof ProviderError) return reply(502, 'provider_error', `the model provider failed: ${error.message}`);
  if (error instanceof AbortedError) return reply(504, 'deadline_exceeded', error.message);
  if (error instanceof HTTPException) return reply(error.status, httpCode(error.status), error.message || 'request refused');
  if (isThrottling(error)) {
    return {
      ...reply(503, 'service_unavailable', 'the service is busy; retry shortly'),
      outage: `${(error as Error).name} (throttled)`,
      retryAfterSeconds: THROTTLED_RETRY_AFTER_SECONDS,
    };
  }
  const outage = outageOf(error);
  if (outage !== null) {
    return {
      ...reply(503, 'unavailable', 'the session store is unavailable; retry later'),
      outage,
      retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS,
    };
  }
  return reply(500, 'internal_error', 'internal error');
}

/**
 * A prompt (or compaction) while tool calls wait for a decision: 409 `approval_pending`.
 * Decisions that do not answer exactly the calls waiting: 409 `approval_not_pending` for a
 * call that does not wait (nothing does, it is unknown, or it was decided already — a second
 * decision, or one that lost a race), 409 `approval_undecided` for a waiting call left out,
 * 400 for a call decided twice in one request.
 */
function approvalReply(
  error: ApprovalPendingError | ApprovalDecisionError,
  reply: (status: ContentfulStatusCode, code: string, message: string, field?: string) => HttpError,
): HttpError {
  if (error instanceof ApprovalPendingError) {
    const calls = error.toolCallIds.join(', ');
    return reply(
      409,
      'approval_pending',
      `tool calls of this session wait for approval (${calls}): decide them with POST /sessions/{id}/approvals first; nothing was written`,
    );
  }
  const what = `${error.message}; nothing was written`;
  switch (error.problem) {
    case 'none_pending':
    case 'not_pending':
      return reply(409, 'approval_not_pending', what, 'decisions');
    case 'undecided':
      return reply(409, 'approval_undecided', what, 'decisions');
    case 'duplicate':
      return reply(400, 'invalid_body', `decisions: ${what}`, 'decisions');
  }
}

/** A turn (or compaction) its owner's limits refused, nothing stored: 429 with `Retry-After`, or 422 for a model without a price under a budget; null for any other error. */
function limitRefusal(error: unknown, reply: (status: ContentfulStatusCode, code: string, message: string, field?: string) => HttpError): HttpError | null {
  if (error instanceof BudgetExceededError) {
    return {
      ...reply(429, 'budget_exceeded', `${error.limit === 'daily' ? 'your daily' : 'your monthly'} spend budget is spent; nothing was stored`),
      retryAfterSeconds: error.retryAfterSeconds,
    };
  }
  if (error instanceof RateLimitedError) {
    const what = error.limit === 'turns_per_minute' ? 'you started as many turns this minute as allowed' : 'you have as many turns running as allowed';
    return { ...reply(429, 'rate_limited', `${what}; nothing was stored`), retryAfterSeconds: error.retryAfterSeconds };
  }
  if (error instanceof UnpricedModelError) {
    return reply(
      422,
      'model_price_unknown',
      `${error.provider}/${error.model} has no known price, and a dollar budget applies to you: its spend could not be counted, so nothing was stored. Choose a model with a price (GET /models), or ask the operator to give this one's (PANTO_MODEL_PRICES)`,
      'model',
    );
  }
  return null;
}

function httpCode(status: number): string {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 404:
      return 'not_found';
    case 413:
      return 'payload_too_large';
    default:
      return 'http_error';
  }
}

/** The providers' words for "too busy now": error events mid-stream have no status. */
const PROVIDER_BUSY_TYPES = new Set(['ThrottlingException', 'ServiceUnavailableException', 'rate_limit_error', 'overloaded_error']);

/**
 * A provider that throttled or was down (429, 503, Anthropic's 529 overloaded, or such an
 * error event) and still was after the SDK's retries: waiting helps, the request is fine.
 * A 429 that waiting does not cure (OpenAI's `insufficient_quota`) is not retryable, so not this.
 */
function providerUnavailable(error: ProviderError): boolean {
  if (!error.retryable) return false;
  if (error.status !== undefined) return error.status === 429 || error.status === 503 || error.status === 529;
  return error.type !== undefined && PROVIDER_BUSY_TYPES.has(error.type);
}

const THROTTLING = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'SlowDown']);

function isThrottling(error: unknown): boolean {
  return (
    error instanceof UnprocessedWritesError ||
    (error instanceof ObjectsNotDeletedError && error.transient) ||
    (error instanceof Error && THROTTLING.has(error.name))
  );
}

/** SDK errors that mean the service failed or did not answer in time, not that the request was wrong. */
const OUTAGE_NAMES = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalServerError',
  'InternalError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
]);

/** Node's codes for a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Whether `error` says a backend is unreachable or failing — a network error, an SDK
 * timeout, a 5xx or a server fault — and if so, what, in a few words; null otherwise. Looks
 * through `cause` chains and AggregateErrors (a connection that failed on every address).
 * A deadline's own DOMException `TimeoutError` is not an outage.
 */
export function outageOf(error: unknown, depth = 0): string | null {
  if (typeof error !== 'object' || error === null || depth > 4 || error instanceof DOMException) return null;
  const { name, code, message, $fault, $metadata, cause } = error as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: unknown };
    cause?: unknown;
  };
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  if (typeof name === 'string' && OUTAGE_NAMES.has(name)) return name;
  const status = $metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return `${typeof name === 'string' ? name : 'error'} (HTTP ${status})`;
  if ($fault === 'server') return `${typeof name === 'string' ? name : 'error'} (server fault)`;
  if (message === 'socket hang up') return 'socket hang up';
  if (error instanceof AggregateError) {
    for (const inner of error.errors as unknown[]) {
      const found = outageOf(inner, depth + 1);
      if (found !== null) return found;
    }
  }
  return outageOf(cause, depth + 1);
}

/** The `Retry-After` header a failure answers with (every 503 has one). */
export function retryAfter(failure: HttpError): Record<string, string> {
  return failure.retryAfterSeconds === null ? {} : { 'retry-after': String(failure.retryAfterSeconds) };
}
