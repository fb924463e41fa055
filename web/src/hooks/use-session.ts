/** The contents of one session, loaded (and reloaded) from the API. */
import { useState } from 'preact/hooks';
import { ApiError, type Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { SessionContents } from '../api/wire.js';

export interface OpenSession {
  /** What `GET /sessions/{id}` last answered; null until it first has. */
  contents: SessionContents | null;
  /** The session does not exist (deleted, or another owner's): nothing here can act on it. */
  gone: boolean;
  /** Reads the session again: its contents, or null when that failed (and `say` was told why). */
  load(): Promise<SessionContents | null>;
  /** Shows contents another request answered (a switch of branch answers the session as it now reads). */
  show(contents: SessionContents): Promise<void>;
}

/**
 * `say` is told, in words, why a read failed. Must not throw. `settle` reads what must change
 * with the contents of a session no turn runs on — its tree (use-session-log.ts) — before they
 * show, so that a turn's answer, its branch switcher and a failed prompt before it appear at
 * once. Never rejects.
 */
export function useSession(api: Api, sessionId: string, say: (notice: string) => void, settle: (next: SessionContents) => Promise<void>): OpenSession {
  const [contents, setContents] = useState<SessionContents | null>(null);
  const [gone, setGone] = useState(false);
  const show = async (next: SessionContents): Promise<void> => {
    if (next.turn === null) await settle(next);
    setContents(next);
  };
  const load = async (): Promise<SessionContents | null> => {
    try {
      const next = await api.session(sessionId);
      await show(next);
      return next;
    } catch (error) {
      say(describeFailure(error));
      if (error instanceof ApiError && error.code === 'session_not_found') setGone(true);
      return null;
    }
  };
  return { contents, gone, load, show };
}
