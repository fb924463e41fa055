/**
 * What the main column shows when no session is open: what the page is for, a call to start
 * a session, your most recent ones to pick up where you left, and what went wrong if anything did.
 */
import type { SessionSummary } from '../api/wire.js';
import { ageText } from '../format.js';
import { plainText } from '../plain-text.js';
import { Alert } from './alert.js';

export interface WelcomeProps {
  problem: string | null;
  /** The sessions listed, newest first: the first few are offered here. */
  sessions: readonly SessionSummary[];
  /** The list has been read at least once (an empty one means no sessions yet). */
  loaded: boolean;
  now: number;
  onNew(): void;
  onSelect(id: string): void;
}

const RECENT = 5;

export function Welcome({ problem, sessions, loaded, now, onNew, onSelect }: WelcomeProps) {
  const recent = sessions.slice(0, RECENT);
  return (
    <section class="welcome" aria-labelledby="welcome-title">
      <h1 id="welcome-title">{loaded && sessions.length === 0 ? 'Your first session' : 'Welcome back'}</h1>
      <p>
        A session is a conversation with a model that keeps itself: every message is stored as it is written, so you can come back to it from any device, edit
        an earlier prompt to try another branch, fork it, or compact it when it grows long.
      </p>
      <Alert message={problem} />
      <button type="button" class="primary cta" onClick={onNew}>
        Start a new session
      </button>
      {recent.length > 0 && (
        <>
          <h2>Recent sessions</h2>
          <ul class="recent">
            {recent.map((session) => (
              <li key={session.id}>
                <button type="button" class="recent-session" onClick={() => onSelect(session.id)}>
                  <span class="session-title">{plainText(session.title ?? '') || 'Untitled session'}</span>
                  <span class="session-meta">
                    {ageText(session.updated_at, now)} · {session.active_model.model}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
