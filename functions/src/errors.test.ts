import { InvalidCursorError, SessionBusyError } from '@panto/aws';
import { AbortedError, InvalidSessionIdError, ProviderError, SessionConflictError, SessionNotFoundError } from '@panto/core';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { invalidField, NothingToCompactError, payloadTooLarge, toHttpError, unauthorized } from './errors.js';

describe('toHttpError', () => {
  it.each([
    ['an invalid field', invalidField('body', 'text', 'required'), 400, 'invalid_body'],
    ['a missing token', unauthorized('no header'), 401, 'unauthorized'],
    ['a body over the limit', payloadTooLarge(10), 413, 'payload_too_large'],
    ['a busy session', new SessionBusyError('s', null), 409, 'session_busy'],
    ['a lost append race', new SessionConflictError('s', { expected: {}, current: {} }), 409, 'session_conflict'],
    ['nothing to compact', new NothingToCompactError(), 409, 'nothing_to_compact'],
    ['a bad cursor', new InvalidCursorError('garbage'), 400, 'invalid_query'],
    ['a provider failure', new ProviderError('anthropic', 'overloaded', { status: 529 }), 502, 'provider_error'],
    ['a deadline', new AbortedError('the step was aborted'), 504, 'deadline_exceeded'],
    ['throttling', Object.assign(new Error('slow down'), { name: 'ThrottlingException' }), 503, 'service_unavailable'],
    ["hono's own exception", new HTTPException(413), 413, 'payload_too_large'],
    ['anything else', new TypeError('x is undefined'), 500, 'internal_error'],
  ])('maps %s to %i', (_what, error, status, code) => {
    const mapped = toHttpError(error);
    expect(mapped.status).toBe(status);
    expect(mapped.body.error.code).toBe(code);
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
    expect(toHttpError(new ProviderError('openai', 'down')).internal).toBe(false);
    expect(toHttpError(new Error('boom')).internal).toBe(true);
  });
});
