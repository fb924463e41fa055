import * as BedrockSDK from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { AbortedError, ModelAccessDeniedError, ProviderError, ProviderNotConfiguredError } from '../errors.js';
import { bedrockErrorRules, providerErrorFromAWS } from './bedrock-error.js';

const MODEL = 'eu.anthropic.claude-sonnet-4-6';
const map = (error: unknown): Error => providerErrorFromAWS(error, bedrockErrorRules(MODEL, 'eu-west-1'));
/** An HTTP error as the SDK builds it from a status and `x-amzn-errortype`. */
const http = <E>(Exception: new (options: { message: string; $metadata: { httpStatusCode: number } }) => E, status: number, message: string): E =>
  new Exception({ message, $metadata: { httpStatusCode: status } });

describe('providerErrorFromAWS', () => {
  it('turns AccessDeniedException into ModelAccessDeniedError naming the model and the region, keeping AWS words as the cause only', () => {
    const cause = http(
      BedrockSDK.AccessDeniedException,
      403,
      'User: arn:aws:sts::123456789012:assumed-role/panto-api/fn is not authorized to perform: bedrock:InvokeModelWithResponseStream',
    );
    const error = map(cause);
    expect(error).toBeInstanceOf(ModelAccessDeniedError);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      "model access for eu.anthropic.claude-sonnet-4-6 is not enabled in eu-west-1: enable it in the Bedrock console, or check the role's policy",
    );
    expect(error).toMatchObject({ provider: 'bedrock', model: MODEL, region: 'eu-west-1', status: 403, type: 'AccessDeniedException', retryable: false });
    expect(error.message).not.toContain('123456789012');
    expect(error.cause).toBe(cause);
  });

  it.each([
    [BedrockSDK.ThrottlingException, 429, 'Too many requests, please wait before trying again.'],
    [BedrockSDK.ServiceUnavailableException, 503, 'Bedrock is unable to process your request.'],
    [BedrockSDK.InternalServerException, 500, 'The server encountered an error processing your request.'],
  ])('reports %o (%i) once the retries ran out as a retryable ProviderError with its status and type', (Exception, status, message) => {
    const error = map(http(Exception as typeof BedrockSDK.ThrottlingException, status, message));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status, retryable: true, type: (Exception as { name: string }).name });
    expect(error.message).toBe(`bedrock ${status} ${(Exception as { name: string }).name}: ${message}`);
  });

  it('reports a prompt too long for the model as the others do a context overflow: a 400 that retrying does not cure, with the message', () => {
    const error = map(http(BedrockSDK.ValidationException, 400, 'Input is too long for requested model.'));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).not.toBeInstanceOf(ModelAccessDeniedError);
    expect(error).toMatchObject({ status: 400, type: 'ValidationException', retryable: false });
    expect(error.message).toBe('bedrock 400 ValidationException: Input is too long for requested model.');
  });

  it('reports an exception event mid-stream without a status, retryable by its type', () => {
    const event = new BedrockSDK.ModelStreamErrorException({ message: 'stream failed', $metadata: {} });
    expect(map(event)).toMatchObject({
      status: undefined,
      type: 'ModelStreamErrorException',
      retryable: true,
      message: 'bedrock stream error ModelStreamErrorException: stream failed',
    });
    const validation = new BedrockSDK.ValidationException({ message: 'bad', $metadata: {} });
    expect(map(validation)).toMatchObject({ status: undefined, retryable: false });
  });

  it('says where the SDK looks when it found no credentials or no region', () => {
    const noCredentials = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    expect(map(noCredentials)).toBeInstanceOf(ProviderNotConfiguredError);
    expect(map(noCredentials).message).toMatch(/no AWS credentials: run `aws sso login`.*AWS_PROFILE.*AWS_ACCESS_KEY_ID/);
    expect(map(new Error('Region is missing')).message).toBe('provider bedrock is not configured: no AWS region: set AWS_REGION (in the CLI, --region)');
  });

  it('reports an unreachable endpoint and a timeout as retryable, an abort as AbortedError, anything else as non-retryable', () => {
    expect(map(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toMatchObject({
      message: 'bedrock: could not reach Bedrock: connect ECONNREFUSED 127.0.0.1:1',
      retryable: true,
    });
    expect(map(Object.assign(new Error('Stream timed out'), { name: 'TimeoutError' }))).toMatchObject({ retryable: true });
    expect(map(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBeInstanceOf(AbortedError);
    expect(map(new Error('checksum mismatch'))).toMatchObject({ name: 'ProviderError', retryable: false, message: 'bedrock: checksum mismatch' });
  });
});
