import { AbortedError, errorMessage, ProviderError } from '../errors.js';
import { droppedStreamError, isConnectionDrop } from './wire-common.js';

/** An HTTP error or an error event, as the official (Stainless-generated) SDKs throw them. */
export interface SDKAPIError extends Error {
  /** The HTTP status; undefined for an error event in an open stream. */
  readonly status: number | undefined;
}

type ErrorClass<T extends Error = Error> = abstract new (...args: never[]) => T;

/**
 * The error classes the official SDKs export under these names. `APIConnectionError`
 * (with its subclass `APIConnectionTimeoutError`) and `APIUserAbortError` extend
 * `APIError` there, so they are told apart first.
 */
export interface SDKErrorClasses<E extends SDKAPIError> {
  readonly APIError: ErrorClass<E>;
  readonly APIConnectionError: ErrorClass;
  readonly APIUserAbortError: ErrorClass;
}

/** How one provider reads its SDK's errors. */
export interface SDKErrorRules<E extends SDKAPIError> {
  /** The provider name, for `ProviderError.provider` and the message. */
  readonly provider: string;
  /** The loaded SDK's error classes; undefined when the SDK never loaded, so nothing it throws can be at hand. */
  readonly classes: SDKErrorClasses<E> | undefined;
  /**
   * The wire's error type and the API's own message of an `APIError`. `retryable: false`
   * overrides the status rule for an error that waiting does not cure (OpenAI's 429
   * `insufficient_quota`). Must not throw.
   */
  describe(error: E): { type: string | undefined; message: string; retryable?: false };
  /** Error types worth retrying whatever the status — error events mid-stream have none. */
  readonly retryableTypes: ReadonlySet<string>;
}

/**
 * The statuses the SDKs retry themselves (unless the server says `x-should-retry: false`),
 * so still worth retrying later when their retries ran out.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * What an SDK threw, as the error a provider call ends with (docs/providers.md, "Failures
 * and retries"):
 *
 * - an abort the SDK noticed → `AbortedError`;
 * - a connection failure or a timeout before the response started → retryable `ProviderError`;
 * - an HTTP error or an error event → `ProviderError` with `status` (HTTP errors only), the
 *   wire's `type`, the API's message, retryable by status or type;
 * - the connection going away mid-response → retryable `stream_dropped`;
 * - anything else (a malformed stream) → non-retryable `ProviderError`.
 *
 * The SDK's error is always the `cause`.
 *
 * @example
 * toError: (error) => providerErrorFromSDK(error, { provider: 'anthropic', classes: sdk.loaded, describe, retryableTypes }),
 */
export function providerErrorFromSDK<E extends SDKAPIError>(error: unknown, rules: SDKErrorRules<E>): Error {
  const { provider, classes } = rules;
  if (classes && error instanceof classes.APIUserAbortError) {
    return new AbortedError(`${provider}: the request was aborted`, { cause: error });
  }
  if (classes && error instanceof classes.APIConnectionError) {
    return new ProviderError(provider, `${provider}: could not reach the API: ${error.message}`, { retryable: true }, { cause: error });
  }
  if (classes && error instanceof classes.APIError) {
    const status = error.status;
    const { type, message, retryable: override } = rules.describe(error);
    const retryable = override ?? ((status !== undefined && isRetryableStatus(status)) || (type !== undefined && rules.retryableTypes.has(type)));
    const where = status !== undefined ? `${provider} ${status}` : `${provider} stream error`;
    return new ProviderError(
      provider,
      `${where} ${type ?? 'error'}: ${message}`,
      {
        ...(status !== undefined ? { status } : {}),
        ...(type !== undefined ? { type } : {}),
        retryable,
      },
      { cause: error },
    );
  }
  if (isConnectionDrop(error)) return droppedStreamError(provider, error);
  return new ProviderError(provider, `${provider}: ${errorMessage(error)}`, {}, { cause: error });
}
