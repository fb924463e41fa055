/**
 * What a failed `TransactWriteItems` means — a condition that did not hold, a duplicate put,
 * contention or throttling worth another try, or something to rethrow untouched — and the
 * bounded, jittered backoff between tries. Shared by the append and the archive claim's
 * transactions.
 */
import type { AttributeValue, TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { ATTR } from './attributes.js';
import { sdkErrorName } from './sdk-errors.js';

/** Cancellation reasons worth another try: contention and throttling, not outcomes. */
const RETRYABLE_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);
/** Exceptions worth another try with the same token. */
const RETRYABLE_ERRORS = new Set([
  'TransactionConflictException',
  'TransactionInProgressException',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  // No response came back: the transaction may or may not have committed. The same token
  // makes the retry return the first outcome instead of applying the batch twice.
  'TimeoutError',
  'RequestTimeout',
]);
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

export type TransactionFailure =
  | { kind: 'conflict'; old: Record<string, AttributeValue> | undefined }
  | { kind: 'duplicate'; sk: string | undefined }
  | { kind: 'retry' }
  | { kind: 'verify' }
  | { kind: 'rethrow' };

interface CancellationReason {
  Code?: string;
  Item?: Record<string, AttributeValue>;
}

/** What to do about a failed transaction. Only errors understood here are mapped. */
export function classifyTransactionError(error: unknown, input: TransactWriteItemsCommandInput): TransactionFailure {
  const name = sdkErrorName(error);
  if (name === 'TransactionCanceledException') {
    const reasons = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
    // The META update comes first: when it failed, whatever else failed, the session moved.
    if (reasons[0]?.Code === 'ConditionalCheckFailed') return { kind: 'conflict', old: reasons[0].Item };
    const put = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
    if (put > 0) return { kind: 'duplicate', sk: input.TransactItems?.[put]?.Put?.Item?.[ATTR.sk]?.S };
    if (reasons.length > 0 && reasons.every((reason) => reason.Code === undefined || reason.Code === 'None' || RETRYABLE_REASONS.has(reason.Code))) {
      return reasons.some((reason) => reason.Code !== undefined && RETRYABLE_REASONS.has(reason.Code)) ? { kind: 'retry' } : { kind: 'rethrow' };
    }
    return { kind: 'rethrow' };
  }
  if (name === 'IdempotentParameterMismatchException') return { kind: 'verify' };
  if (name !== undefined && RETRYABLE_ERRORS.has(name)) return { kind: 'retry' };
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return { kind: 'retry' };
  const code = (error as { code?: unknown } | null)?.code;
  if (status === undefined && typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code)) return { kind: 'retry' };
  return { kind: 'rethrow' };
}

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff ceiling; doubles per retry (full jitter). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 4, baseDelayMs: 50, maxDelayMs: 1_000 };

/** Waits before retry `attempt` (0-based): a random time up to the policy's ceiling for it, which doubles per retry (full jitter). */
export function backoff(policy: RetryPolicy, attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt)));
}
