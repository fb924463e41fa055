import * as AnthropicSDK from '@anthropic-ai/sdk';
import * as OpenAISDK from 'openai';
import { describe, expect, it } from 'vitest';
import { AbortedError, ProviderError } from '../errors.js';
import { anthropicErrorRules } from './anthropic-messages.js';
import { openaiErrorRules } from './openai-chat.js';
import { isRetryableStatus, providerErrorFromSDK } from './sdk-error.js';

const headers = new Headers({ 'content-type': 'application/json' });
const anthropicBody = (type: string, message: string) => ({ type: 'error', error: { type, message } });
const openaiBody = (type: string | null, message: string, code: string | null = null) => ({
  message,
  type,
  param: null,
  code,
});
const anthropic = (error: unknown): Error => providerErrorFromSDK(error, anthropicErrorRules(AnthropicSDK));
const openai = (error: unknown): Error => providerErrorFromSDK(error, openaiErrorRules(OpenAISDK));
const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

/** What the error must look like; `message` is matched exactly. */
interface Expected {
  name: 'ProviderError' | 'AbortedError';
  message: string;
  status?: number | undefined;
  type?: string | undefined;
  retryable?: boolean;
}

// The SDK errors are built the way the SDKs build them: `APIError.generate` for an HTTP
// error, `new APIError(undefined, body, …)` for an error event in an open stream.
const cases: [string, (error: unknown) => Error, () => unknown, Expected][] = [
  [
    'anthropic 429 rate_limit_error',
    anthropic,
    () => AnthropicSDK.APIError.generate(429, anthropicBody('rate_limit_error', 'Slow down'), undefined, headers),
    {
      name: 'ProviderError',
      message: 'anthropic 429 rate_limit_error: Slow down',
      status: 429,
      type: 'rate_limit_error',
      retryable: true,
    },
  ],
  [
    'anthropic 529 overloaded_error',
    anthropic,
    () => AnthropicSDK.APIError.generate(529, anthropicBody('overloaded_error', 'Overloaded'), undefined, headers),
    {
      name: 'ProviderError',
      message: 'anthropic 529 overloaded_error: Overloaded',
      status: 529,
      type: 'overloaded_error',
      retryable: true,
    },
  ],
  [
    'anthropic 400 invalid_request_error',
    anthropic,
    () => AnthropicSDK.APIError.generate(400, anthropicBody('invalid_request_error', 'max_tokens: too many'), undefined, headers),
    {
      name: 'ProviderError',
      message: 'anthropic 400 invalid_request_error: max_tokens: too many',
      status: 400,
      type: 'invalid_request_error',
      retryable: false,
    },
  ],
  [
    'anthropic 401 authentication_error',
    anthropic,
    () => AnthropicSDK.APIError.generate(401, anthropicBody('authentication_error', 'invalid x-api-key'), undefined, headers),
    {
      name: 'ProviderError',
      message: 'anthropic 401 authentication_error: invalid x-api-key',
      status: 401,
      type: 'authentication_error',
      retryable: false,
    },
  ],
  [
    'anthropic 500 without a JSON body',
    anthropic,
    () => AnthropicSDK.APIError.generate(500, undefined, 'Internal Server Error', headers),
    {
      name: 'ProviderError',
      message: 'anthropic 500 error: 500 Internal Server Error',
      status: 500,
      type: undefined,
      retryable: true,
    },
  ],
  [
    'anthropic overloaded_error event mid-stream',
    anthropic,
    () => new AnthropicSDK.APIError(undefined, anthropicBody('overloaded_error', 'Overloaded'), undefined, headers, 'overloaded_error'),
    {
      name: 'ProviderError',
      message: 'anthropic stream error overloaded_error: Overloaded',
      status: undefined,
      type: 'overloaded_error',
      retryable: true,
    },
  ],
  [
    'anthropic invalid_request_error event mid-stream',
    anthropic,
    () => new AnthropicSDK.APIError(undefined, anthropicBody('invalid_request_error', 'bad'), undefined, headers, 'invalid_request_error'),
    {
      name: 'ProviderError',
      message: 'anthropic stream error invalid_request_error: bad',
      status: undefined,
      type: 'invalid_request_error',
      retryable: false,
    },
  ],
  [
    'anthropic connection failure',
    anthropic,
    () =>
      new AnthropicSDK.APIConnectionError({
        message: 'Connection error.',
        cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED'),
      }),
    {
      name: 'ProviderError',
      message: 'anthropic: could not reach the API: Connection error.',
      status: undefined,
      type: undefined,
      retryable: true,
    },
  ],
  [
    'anthropic timeout before the response started',
    anthropic,
    () => new AnthropicSDK.APIConnectionTimeoutError(),
    {
      name: 'ProviderError',
      message: 'anthropic: could not reach the API: Request timed out.',
      status: undefined,
      type: undefined,
      retryable: true,
    },
  ],
  [
    'anthropic abort the SDK noticed',
    anthropic,
    () => new AnthropicSDK.APIUserAbortError(),
    { name: 'AbortedError', message: 'anthropic: the request was aborted' },
  ],
  [
    'openai 429 rate_limit_exceeded',
    openai,
    () => OpenAISDK.APIError.generate(429, { error: openaiBody('rate_limit_exceeded', 'Rate limit reached') }, undefined, headers),
    {
      name: 'ProviderError',
      message: 'openai 429 rate_limit_exceeded: Rate limit reached',
      status: 429,
      type: 'rate_limit_exceeded',
      retryable: true,
    },
  ],
  [
    'openai 429 insufficient_quota',
    openai,
    () =>
      OpenAISDK.APIError.generate(
        429,
        { error: openaiBody('insufficient_quota', 'You exceeded your current quota.', 'insufficient_quota') },
        undefined,
        headers,
      ),
    {
      name: 'ProviderError',
      message: 'openai 429 insufficient_quota: You exceeded your current quota.',
      status: 429,
      type: 'insufficient_quota',
      retryable: false,
    },
  ],
  [
    'openai 429 whose quota code comes without a type',
    openai,
    () => OpenAISDK.APIError.generate(429, { error: openaiBody(null, 'quota', 'insufficient_quota') }, undefined, headers),
    {
      name: 'ProviderError',
      message: 'openai 429 insufficient_quota: quota',
      status: 429,
      type: 'insufficient_quota',
      retryable: false,
    },
  ],
  [
    'openai 503 server_error',
    openai,
    () => OpenAISDK.APIError.generate(503, { error: openaiBody('server_error', 'Service unavailable') }, undefined, headers),
    {
      name: 'ProviderError',
      message: 'openai 503 server_error: Service unavailable',
      status: 503,
      type: 'server_error',
      retryable: true,
    },
  ],
  [
    'openai 400 invalid_request_error',
    openai,
    () => OpenAISDK.APIError.generate(400, { error: openaiBody('invalid_request_error', "Invalid 'messages'", 'invalid_value') }, undefined, headers),
    {
      name: 'ProviderError',
      message: "openai 400 invalid_request_error: Invalid 'messages'",
      status: 400,
      type: 'invalid_request_error',
      retryable: false,
    },
  ],
  [
    'openai error chunk mid-stream',
    openai,
    () => new OpenAISDK.APIError(undefined, openaiBody('server_error', 'The server had an error'), undefined, headers),
    {
      name: 'ProviderError',
      message: 'openai stream error server_error: The server had an error',
      status: undefined,
      type: 'server_error',
      retryable: true,
    },
  ],
  [
    'openai error chunk typed only by its code',
    openai,
    () => new OpenAISDK.APIError(undefined, openaiBody(null, 'Too many requests', 'rate_limit_exceeded'), undefined, headers),
    {
      name: 'ProviderError',
      message: 'openai stream error rate_limit_exceeded: Too many requests',
      status: undefined,
      type: 'rate_limit_exceeded',
      retryable: true,
    },
  ],
  [
    'openai connection failure',
    openai,
    () => new OpenAISDK.APIConnectionError({ message: 'Connection error.' }),
    {
      name: 'ProviderError',
      message: 'openai: could not reach the API: Connection error.',
      status: undefined,
      type: undefined,
      retryable: true,
    },
  ],
  [
    'openai timeout before the response started',
    openai,
    () => new OpenAISDK.APIConnectionTimeoutError(),
    {
      name: 'ProviderError',
      message: 'openai: could not reach the API: Request timed out.',
      status: undefined,
      type: undefined,
      retryable: true,
    },
  ],
  ['openai abort the SDK noticed', openai, () => new OpenAISDK.APIUserAbortError(), { name: 'AbortedError', message: 'openai: the request was aborted' }],
  [
    'a connection reset mid-response',
    anthropic,
    () => new TypeError('terminated', { cause: withCode('other side closed', 'UND_ERR_SOCKET') }),
    {
      name: 'ProviderError',
      message: 'anthropic: the connection dropped before the message was complete (terminated)',
      status: undefined,
      type: 'stream_dropped',
      retryable: true,
    },
  ],
  [
    'an ECONNRESET mid-response',
    openai,
    () => withCode('read ECONNRESET', 'ECONNRESET'),
    {
      name: 'ProviderError',
      message: 'openai: the connection dropped before the message was complete (read ECONNRESET)',
      status: undefined,
      type: 'stream_dropped',
      retryable: true,
    },
  ],
  [
    'a malformed stream',
    anthropic,
    () => new SyntaxError('Unexpected token n in JSON'),
    {
      name: 'ProviderError',
      message: 'anthropic: Unexpected token n in JSON',
      status: undefined,
      type: undefined,
      retryable: false,
    },
  ],
  [
    'something that is not an Error',
    openai,
    () => 'boom',
    { name: 'ProviderError', message: 'openai: boom', status: undefined, type: undefined, retryable: false },
  ],
];

describe('providerErrorFromSDK', () => {
  it.each(cases)('maps %s', (_, map, make, expected) => {
    const cause = make();
    const error = map(cause);
    expect(error).toBeInstanceOf(expected.name === 'AbortedError' ? AbortedError : ProviderError);
    expect(error.cause).toBe(cause);
    const { name, message, ...detail } = expected;
    expect({ name: error.name, message: error.message }).toEqual({ name, message });
    if (error instanceof ProviderError) {
      expect({ status: error.status, type: error.type, retryable: error.retryable }).toEqual(detail);
      expect(error.provider).toBe(map === anthropic ? 'anthropic' : 'openai');
    }
  });

  it('cannot recognise an SDK error before the SDK was loaded, and still never throws', () => {
    const error = providerErrorFromSDK(
      AnthropicSDK.APIError.generate(429, anthropicBody('rate_limit_error', 'Slow down'), undefined, headers),
      anthropicErrorRules(undefined),
    );
    expect(error).toMatchObject({ name: 'ProviderError', status: undefined, retryable: false });
  });

  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
    [529, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [413, false],
    [422, false],
  ])('calls status %i retryable: %s', (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
  });
});
