import { describe, expect, it } from 'vitest';
import { ApiError } from './client.js';
import { describeFailure, retryText } from './failure.js';

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

describe('retryText and a limit', () => {
  // 2026-12-01 19:00 UTC.
  const clock = { now: Date.parse('2026-12-01T19:00:00Z'), locale: 'en-GB', timeZone: 'UTC' };

  it('says when to try again in the largest unit that reads well, with the time or day once it is hours away', () => {
    expect(retryText(12, clock)).toBe('in 12 s');
    expect(retryText(3600, clock)).toBe('in 60 min');
    expect(retryText(5 * 3600, clock)).toBe('in 5 h, at 00:00');
    expect(retryText(30 * 86_400, clock)).toBe('in 30 d, on 31 Dec');
  });

  it('tells a refused prompt when to try again, from the Retry-After of its 429', () => {
    expect(describeFailure(new ApiError(429, 'budget_exceeded', 'spent', 5 * 3600), clock)).toBe(
      'You have used up your spend budget, so this message was not sent. Try again in 5 h, at 00:00.',
    );
    expect(describeFailure(new ApiError(429, 'rate_limited', 'too many', 40), clock)).toBe(
      'You have started as many turns as you may for now, so this message was not sent. Try again in 40 s.',
    );
    // Without a Retry-After, nothing is made up.
    expect(describeFailure(new ApiError(429, 'budget_exceeded', 'spent'), clock)).toBe('You have used up your spend budget, so this message was not sent.');
  });
});
