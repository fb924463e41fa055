import { AbortedError, errorMessage, ModelAccessDeniedError, ProviderError, ProviderNotConfiguredError } from '../errors.js';
import { isRetryableStatus } from './sdk-error.js';
import { droppedStreamError, isConnectionDrop } from './wire-common.js';

/** What the error mapping needs to know of the call. */
export interface BedrockErrorRules {
  readonly provider: string;
  readonly model: string;
  /** The region the client called, once it was resolved. */
  readonly region: string | undefined;
}

export function bedrockErrorRules(model: string, region: string | undefined): BedrockErrorRules {
  return { provider: 'bedrock', model, region };
}

/**
 * Bedrock's error types worth retrying whatever the status: an exception event in an open
 * stream has no status (`throttlingException`, `serviceUnavailableException`, …).
 */
const RETRYABLE_TYPES = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelStreamErrorException',
  'ModelNotReadyException',
  'ModelTimeoutException',
]);

/** Node's codes for a connection that could not be made (the SDK retried those already). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ERR_HTTP2_ERROR']);

/**
 * An error the AWS SDK built from the service's answer: named by `x-amzn-errortype` (or the
 * exception event), with a `$fault`; `$metadata.httpStatusCode` only for an HTTP error.
 */
interface AWSServiceError extends Error {
  readonly $fault: 'client' | 'server';
  readonly $metadata?: { readonly httpStatusCode?: number };
}

function isServiceError(error: unknown): error is AWSServiceError {
  const fault = (error as { $fault?: unknown } | null)?.$fault;
  return error instanceof Error && (fault === 'client' || fault === 'server');
}

/**
 * What the AWS SDK threw, as the error a Bedrock call ends with (docs/providers.md, "Failures
 * and retries"):
 *
 * - `AccessDeniedException` → {@link ModelAccessDeniedError} (enable model access, or fix the role's policy);
 * - no credentials, no region → `ProviderNotConfiguredError`, saying where the SDK looks;
 * - any other answer of the service, or an exception event mid-stream → `ProviderError` with
 *   the HTTP status (none mid-stream), the error type (`ThrottlingException`,
 *   `ValidationException` — a prompt too long for the model among them, like the other
 *   providers' 400), Bedrock's message, retryable by status or type;
 * - a connection that could not be made or timed out → retryable `ProviderError`;
 * - the connection going away mid-response → retryable `stream_dropped`;
 * - anything else → non-retryable `ProviderError`.
 *
 * The SDK's error is always the `cause`.
 */
export function providerErrorFromAWS(error: unknown, rules: BedrockErrorRules): Error {
  const { provider } = rules;
  if (error instanceof Error && error.name === 'AbortError') return new AbortedError(`${provider}: the request was aborted`, { cause: error });
  if (isServiceError(error) && error.name === 'AccessDeniedException') {
    const status = error.$metadata?.httpStatusCode;
    return new ModelAccessDeniedError(
      provider,
      rules.model,
      rules.region ?? 'this region',
      { ...(status !== undefined ? { status } : {}), type: error.name },
      { cause: error },
    );
  }
  const unconfigured = notConfigured(error);
  if (unconfigured !== undefined) return unconfigured;
  if (isServiceError(error)) {
    const status = error.$metadata?.httpStatusCode;
    const type = error.name;
    const retryable = (status !== undefined && isRetryableStatus(status)) || RETRYABLE_TYPES.has(type);
    const where = status !== undefined ? `${provider} ${status}` : `${provider} stream error`;
    return new ProviderError(
      provider,
      `${where} ${type}: ${error.message}`,
      { ...(status !== undefined ? { status } : {}), type, retryable },
      { cause: error },
    );
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && (error.name === 'TimeoutError' || (typeof code === 'string' && UNREACHABLE_CODES.has(code)))) {
    return new ProviderError(provider, `${provider}: could not reach Bedrock: ${error.message}`, { retryable: true }, { cause: error });
  }
  if (isConnectionDrop(error)) return droppedStreamError(provider, error);
  return new ProviderError(provider, `${provider}: ${errorMessage(error)}`, {}, { cause: error });
}

/** The SDK found no credentials or no region: a setting is missing, said in the words of the places it reads. */
function notConfigured(error: unknown): ProviderNotConfiguredError | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'CredentialsProviderError') {
    return new ProviderNotConfiguredError(
      'bedrock',
      'no AWS credentials: run `aws sso login` or `aws configure`, set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (on AWS the function role provides them)',
    );
  }
  if (error.message === 'Region is missing') return new ProviderNotConfiguredError('bedrock', 'no AWS region: set AWS_REGION (in the CLI, --region)');
  return undefined;
}
