import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  DynamoDBServiceException,
  GetItemCommand,
  InternalServerError,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import {
  InvalidCursorError,
  ObjectsNotDeletedError,
  SessionBusyError,
  SessionLeaseLostError,
  SessionRestoringError,
  StopRequestedError,
  TurnNotRunningError,
  UnprocessedWritesError,
} from '@panto/aws';
import {
  AbortedError,
  InvalidSessionIdError,
  NothingToCompactError,
  ModelAccessDeniedError,
  ProviderError,
  ProviderNotConfiguredError,
  SessionConflictError,
  SessionNotFoundError,
  UnknownProviderError,
  UnsupportedModelError,
} from '@panto/core';
import { mockClient } from 'aws-sdk-client-mock';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import {
  invalidField,
  OUTAGE_RETRY_AFTER_SECONDS,
  payloadTooLarge,
  RESTORING_RETRY_AFTER_SECONDS,
  retryAfter,
  THROTTLED_RETRY_AFTER_SECONDS,
  toHttpError,
  unauthorized,
} from './errors.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const $metadata = (httpStatusCode?: number) => ({ ...(httpStatusCode === undefined ? {} : { httpStatusCode }), attempts: 3, totalRetryDelay: 120 });

/** What `send` rejects with when the mocked client fails with `error`: the error as the SDK hands it to the caller. */
async function fromDynamo(error: Error): Promise<unknown> {
  const client = new DynamoDBClient({ region: 'us-east-1', credentials });
  mockClient(client).on(GetItemCommand).rejects(error);
  return client.send(new GetItemCommand({ TableName: 't', Key: {} })).then(
    () => 'resolved',
    (rejected: unknown) => rejected,
  );
}

async function fromS3(error: Error): Promise<unknown> {
  const client = new S3Client({ region: 'us-east-1', credentials });
  mockClient(client).on(GetObjectCommand).rejects(error);
  return client.send(new GetObjectCommand({ Bucket: 'b', Key: 'k' })).then(
    () => 'resolved',
    (rejected: unknown) => rejected,
  );
}

/** A Node network error as the SDK's HTTP handler rejects with it (its code, plus the SDK's `$metadata`). */
function networkError(code: string, message = `connect ${code} 127.0.0.1:8000`): Error {
  return Object.assign(new Error(message), { code, $metadata: $metadata() });
}

describe('toHttpError', () => {
  it.each([
    ['an invalid field', invalidField('body', 'text', 'required'), 400, 'invalid_body'],
    ['a missing token', unauthorized('no header'), 401, 'unauthorized'],
    ['a body over the limit', payloadTooLarge(10), 413, 'payload_too_large'],
    ['a busy session', new SessionBusyError('s', null), 409, 'session_busy'],
    ['a lost append race', new SessionConflictError('s', { expected: {}, current: {} }), 409, 'session_conflict'],
    ['a lease another turn took', new SessionLeaseLostError('s'), 409, 'lease_lost'],
    ['a stop with no turn running', new TurnNotRunningError('s'), 409, 'turn_not_running'],
    ['a compaction stopped on request', new StopRequestedError('s'), 409, 'stopped'],
    ['nothing to compact', new NothingToCompactError(), 409, 'nothing_to_compact'],
    ['a provider without a key here', new ProviderNotConfiguredError('openai', 'no API key'), 422, 'provider_not_configured'],
    ['an unknown provider', new UnknownProviderError('gemini', ['anthropic']), 400, 'invalid_body'],
    [
      'a model the provider does not offer',
      new UnsupportedModelError('offline', 'claude-opus', { reason: 'unknown', known: ['offline-1'] }),
      400,
      'invalid_body',
    ],
    ['a bad cursor', new InvalidCursorError('garbage'), 400, 'invalid_query'],
    ['a provider failure', new ProviderError('anthropic', 'overloaded', { status: 529 }), 502, 'provider_error'],
    ['model access not enabled', new ModelAccessDeniedError('bedrock', 'us.amazon.nova-pro-v1:0', 'us-east-1', { status: 403 }), 422, 'model_access_denied'],
    [
      'a provider still throttling after its retries',
      new ProviderError('bedrock', 'bedrock 429 ThrottlingException: slow', { status: 429, type: 'ThrottlingException', retryable: true }),
      503,
      'provider_unavailable',
    ],
    ['a provider still down after its retries', new ProviderError('bedrock', 'down', { status: 503, retryable: true }), 503, 'provider_unavailable'],
    ['a throttling event mid-stream', new ProviderError('bedrock', 'slow', { type: 'ThrottlingException', retryable: true }), 503, 'provider_unavailable'],
    ['a 429 that waiting does not cure', new ProviderError('openai', 'quota', { status: 429, retryable: false }), 502, 'provider_error'],
    [
      'a prompt too long for the model',
      new ProviderError('bedrock', 'bedrock 400 ValidationException: Input is too long', { status: 400 }),
      502,
      'provider_error',
    ],
    ['a deadline', new AbortedError('the step was aborted'), 504, 'deadline_exceeded'],
    ['throttling', Object.assign(new Error('slow down'), { name: 'ThrottlingException' }), 503, 'service_unavailable'],
    ['writes DynamoDB kept unprocessed (throttled)', new UnprocessedWritesError('panto', 3, 8), 503, 'service_unavailable'],
    [
      'objects S3 kept failing to delete with a code to retry',
      new ObjectsNotDeletedError('b', [{ key: 'k', code: 'SlowDown', message: 'slow' }], true),
      503,
      'service_unavailable',
    ],
    [
      'objects S3 refused to delete (a bucket policy)',
      new ObjectsNotDeletedError('b', [{ key: 'k', code: 'AccessDenied', message: 'no' }], false),
      500,
      'internal_error',
    ],
    ['an outage (connection refused)', networkError('ECONNREFUSED'), 503, 'unavailable'],
    ["hono's own exception", new HTTPException(413), 413, 'payload_too_large'],
    ['anything else', new TypeError('x is undefined'), 500, 'internal_error'],
  ])('maps %s to %i', (_what, error, status, code) => {
    const mapped = toHttpError(error);
    expect(mapped.status).toBe(status);
    expect(mapped.body.error.code).toBe(code);
  });

  it("says which model to enable where, naming the model field, and asks a throttled provider's client to come back", () => {
    const denied = toHttpError(new ModelAccessDeniedError('bedrock', 'eu.anthropic.claude-sonnet-4-6', 'eu-west-1'));
    expect(denied.body.error).toEqual({
      code: 'model_access_denied',
      message: "model access for eu.anthropic.claude-sonnet-4-6 is not enabled in eu-west-1: enable it in the Bedrock console, or check the role's policy",
      field: 'model',
    });
    expect(denied.internal).toBe(false);
    const throttled = toHttpError(new ProviderError('bedrock', 'slow', { status: 429, retryable: true }));
    expect(retryAfter(throttled)).toEqual({ 'retry-after': '5' });
    expect(throttled.internal).toBe(false);
  });

  it('answers an unknown, a foreign and a malformed session id with the same body', () => {
    const bodies = [
      toHttpError(new SessionNotFoundError('0190a1b2-0000-7000-8000-000000000001')),
      toHttpError(new SessionNotFoundError('someone-elses-session')),
      toHttpError(new InvalidSessionIdError('../etc/passwd', 'has ..')),
    ].map((mapped) => ({ status: mapped.status, body: mapped.body }));
    expect(bodies[0]).toEqual({ status: 404, body: { error: { code: 'session_not_found', message: 'session not found' } } });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it('names the field of an invalid body, and logs only failures of the service itself', () => {
    expect(toHttpError(invalidField('query', 'limit', 'an integer from 1 to 100')).body.error).toEqual({
      code: 'invalid_query',
      message: 'limit: an integer from 1 to 100',
      field: 'limit',
    });
    expect(toHttpError(new UnsupportedModelError('offline', 'claude-opus', { reason: 'unknown', known: ['offline-1'] })).body.error).toEqual({
      code: 'invalid_body',
      message: 'model: unknown offline model "claude-opus": expected one of offline-1',
      field: 'model',
    });
    expect(toHttpError(new ProviderError('openai', 'down')).internal).toBe(false);
    expect(toHttpError(new Error('boom')).internal).toBe(true);
  });
});

describe('toHttpError: a backend outage is a 503 with Retry-After, not a defect', () => {
  it.each([
    ['DynamoDB InternalServerError', () => fromDynamo(new InternalServerError({ message: 'internal', $metadata: $metadata(500) }))],
    [
      'a DynamoDB 5xx the SDK could not name',
      () => fromDynamo(new DynamoDBServiceException({ name: 'Unknown', $fault: 'client', message: 'UnknownError', $metadata: $metadata(502) })),
    ],
    [
      'a server fault',
      () => fromDynamo(new DynamoDBServiceException({ name: 'ServiceUnavailable', $fault: 'server', message: 'unavailable', $metadata: $metadata() })),
    ],
    [
      'S3 InternalError',
      () => fromS3(new S3ServiceException({ name: 'InternalError', $fault: 'server', message: 'We encountered an internal error', $metadata: $metadata(500) })),
    ],
    [
      'S3 RequestTimeout (a 400 that means the connection stalled)',
      () => fromS3(new S3ServiceException({ name: 'RequestTimeout', $fault: 'client', message: 'timeout', $metadata: $metadata(400) })),
    ],
    [
      "the SDK's own TimeoutError",
      () => fromDynamo(Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError', $metadata: $metadata() })),
    ],
    ['connection refused', () => fromDynamo(networkError('ECONNREFUSED'))],
    ['connection reset', () => fromDynamo(networkError('ECONNRESET', 'socket hang up'))],
    ['a timed-out connect', () => fromS3(networkError('ETIMEDOUT'))],
    ['a broken pipe', () => fromS3(networkError('EPIPE', 'write EPIPE'))],
    ['an unknown host', () => fromDynamo(networkError('ENOTFOUND', 'getaddrinfo ENOTFOUND dynamodb.example'))],
    ['a DNS failure', () => fromDynamo(networkError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN dynamodb.example'))],
    ['a socket hang up without a code', () => fromDynamo(Object.assign(new Error('socket hang up'), { $metadata: $metadata() }))],
    ['every address refused (AggregateError)', async () => new AggregateError([networkError('ECONNREFUSED'), networkError('ECONNREFUSED')], 'connect failed')],
    ['a network error as the cause of another', async () => new TypeError('fetch failed', { cause: networkError('ECONNREFUSED') })],
  ])('maps %s to 503 unavailable, Retry-After and an outage line', async (_what, make) => {
    const mapped = toHttpError(await make());
    expect(mapped.status).toBe(503);
    expect(mapped.body).toEqual({ error: { code: 'unavailable', message: 'the session store is unavailable; retry later' } });
    expect(mapped.retryAfterSeconds).toBe(OUTAGE_RETRY_AFTER_SECONDS);
    expect(mapped.internal).toBe(false);
    expect(mapped.outage).toEqual(expect.any(String));
  });

  it('names what failed in the outage line', async () => {
    expect(toHttpError(await fromDynamo(networkError('ECONNREFUSED'))).outage).toBe('ECONNREFUSED');
    expect(toHttpError(await fromDynamo(new InternalServerError({ message: 'x', $metadata: $metadata(500) }))).outage).toBe('InternalServerError');
    expect(
      toHttpError(await fromDynamo(new DynamoDBServiceException({ name: 'Unknown', $fault: 'client', message: 'x', $metadata: $metadata(502) }))).outage,
    ).toBe('Unknown (HTTP 502)');
  });

  it('maps throttling to 503 service_unavailable with a shorter Retry-After', async () => {
    const mapped = toHttpError(await fromDynamo(new ProvisionedThroughputExceededException({ message: 'slow', $metadata: $metadata(400) })));
    expect(mapped).toMatchObject({ status: 503, retryAfterSeconds: THROTTLED_RETRY_AFTER_SECONDS, internal: false });
    expect(mapped.body.error.code).toBe('service_unavailable');
  });

  it('maps a session another request is still restoring to 503 session_restoring with a Retry-After, not a defect', () => {
    const mapped = toHttpError(new SessionRestoringError('s'));
    expect(mapped).toMatchObject({ status: 503, retryAfterSeconds: RESTORING_RETRY_AFTER_SECONDS, internal: false, outage: null });
    expect(mapped.body.error.code).toBe('session_restoring');
  });

  it.each([
    [
      'a ValidationException (a bug of ours)',
      () => fromDynamo(new DynamoDBServiceException({ name: 'ValidationException', $fault: 'client', message: 'bad', $metadata: $metadata(400) })),
    ],
    [
      'an untranslated ConditionalCheckFailedException',
      () => fromDynamo(new ConditionalCheckFailedException({ message: 'failed', $metadata: $metadata(400) })),
    ],
    ["a deadline's DOMException TimeoutError", async () => new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
    ['a plain TypeError', async () => new TypeError('x is undefined')],
  ])('keeps %s a 500 defect, without Retry-After', async (_what, make) => {
    const mapped = toHttpError(await make());
    expect(mapped).toMatchObject({ status: 500, internal: true, outage: null, retryAfterSeconds: null });
    expect(mapped.body.error.code).toBe('internal_error');
  });
});
