import { describe, expect, it } from 'vitest';
import { ApiError } from './client.js';
import { describeFailure } from './failure.js';

describe('describeFailure', () => {
  it('turns a 409 session_busy into a sentence about the other turn, without status or code', () => {
    const text = describeFailure(new ApiError(409, 'session_busy', 'a turn is already running on session 019…'));
    expect(text).toMatch(/^A turn is already running in this session/);
    expect(text).not.toMatch(/409|session_busy/);
  });

  it('does not call every 401 an expiry: a token of another stack was never valid here', () => {
    expect(describeFailure(new ApiError(401, 'unauthorized', 'invalid token'))).toBe('Your sign-in has expired or is not valid here. Sign in again.');
  });

  it("passes the server's message through for other API errors, and names a network failure", () => {
    expect(describeFailure(new ApiError(400, 'invalid_body', 'text: required'))).toBe('text: required');
    expect(describeFailure(new TypeError('Failed to fetch'))).toMatch(/could not be reached/);
  });
});
