/** What the page says when a request fails: a sentence a person can act on, never a status dump. */
import { ApiError } from './client.js';

/** The clock a "try again" time is told by: now, and the reader's locale and time zone (the browser's when absent). */
export interface Clock {
  now: number;
  locale?: string;
  timeZone?: string;
}

const browserClock = (): Clock => ({ now: Date.now() });

/**
 * When to try again, `seconds` from now, as a person reads it: "in 12 s", "in 3 min", "in 5 h,
 * at 01:00" (their local time), "in 12 d, on 1 Jan".
 */
export function retryText(seconds: number, { now, locale, timeZone }: Clock): string {
  if (seconds < 90) return `in ${seconds} s`;
  if (seconds < 5400) return `in ${Math.round(seconds / 60)} min`;
  const at = new Date(now + seconds * 1000);
  const zone = timeZone === undefined ? {} : { timeZone };
  if (seconds < 36 * 3600) {
    return `in ${Math.round(seconds / 3600)} h, at ${at.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', ...zone })}`;
  }
  return `in ${Math.round(seconds / 86_400)} d, on ${at.toLocaleDateString(locale, { day: 'numeric', month: 'short', ...zone })}`;
}

/** What a failed request tells the user: friendly for the answers a person can act on; a limit says when to try again. */
export function describeFailure(error: unknown, clock: Clock = browserClock()): string {
  const said = sentence(error);
  if (error instanceof ApiError && error.status === 429 && error.retryAfter !== null) return `${said} Try again ${retryText(error.retryAfter, clock)}.`;
  return said;
}

function sentence(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.code) {
      case 'session_busy':
      case 'idempotency_key_in_progress':
        return 'A turn is already running in this session, perhaps in another tab. Wait for it to finish, then send again.';
      case 'session_not_found':
        return 'This session is gone: it was deleted, or it belongs to someone else.';
      case 'provider_not_configured':
        return "The server has no key for this session's model any more.";
      case 'budget_exceeded':
        return 'You have used up your spend budget, so this message was not sent.';
      case 'rate_limited':
        return 'You have started as many turns as you may for now, so this message was not sent.';
      case 'approval_pending':
        return 'The model is waiting for your decision on a tool call: approve or deny it first.';
      case 'approval_not_pending':
        return 'That tool call no longer waits for a decision: it was decided already, perhaps in another tab.';
      case 'nothing_to_compact':
        return 'There is nothing to compact yet.';
      case 'unauthorized':
        // A 401 is an expired token as well as one this server does not accept (another stack's, a bad signature).
        return 'Your sign-in has expired or is not valid here. Sign in again.';
      default:
        return error.message;
    }
  }
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}
