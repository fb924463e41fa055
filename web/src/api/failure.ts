/** What the page says when a request fails: a sentence a person can act on, never a status dump. */
import { ApiError } from './client.js';

/** What a failed request tells the user: friendly for the answers a person can act on. */
export function describeFailure(error: unknown): string {
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
