/** The signed-in user's sessions, newest first: the pages loaded so far, more on request, and a refresh. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { SessionSummary } from '../api/wire.js';
import { useLatest } from './use-latest.js';

/** Sessions per page of the list, and the most the API gives at once (`GET /sessions?limit`). */
const PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

export interface Sessions {
  sessions: SessionSummary[];
  /** The list has another page. */
  hasMore: boolean;
  loading: boolean;
  /** The list has been read once at least: an empty one is a user without sessions. */
  loaded: boolean;
  /** The time the list's ages are counted from: now, as of the last load or the last half minute. */
  now: number;
  /** The next page (`more`), or the list again with as many sessions as it shows, so that pages loaded on scroll stay. */
  load(more: boolean): Promise<void>;
  /** A session created here, first in the list. */
  add(session: SessionSummary): void;
  /** A session deleted here, out of the list. */
  remove(id: string): void;
}

/** Loads the list whenever `api` changes (a new sign-in). `say` is told, in words, why a load failed. Must not throw. */
export function useSessions(api: Api | null, say: (problem: string) => void): Sessions {
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [now, setNow] = useState(Date.now());
  /** How many sessions the list shows: a refresh reloads as many, so pages loaded on scroll stay. */
  const shown = useRef(0);
  shown.current = sessions.length;

  const load = async (more: boolean): Promise<void> => {
    if (api === null || (more && (cursor === null || loading))) return;
    setLoading(true);
    try {
      const page = await api.listSessions(more ? cursor : null, more ? PAGE_SIZE : Math.min(MAX_PAGE_SIZE, Math.max(PAGE_SIZE, shown.current)));
      setSessions((current) => (more ? [...current, ...page.sessions.filter((session) => !current.some((known) => known.id === session.id))] : page.sessions));
      setCursor(page.next_cursor);
      setNow(Date.now());
      setLoaded(true);
    } catch (error) {
      say(describeFailure(error));
    } finally {
      setLoading(false);
    }
  };

  const loadLatest = useLatest(load);
  useEffect(() => {
    // Signed in (a new token): the list of that user's sessions.
    if (api !== null) void loadLatest.current(false);
  }, [api, loadLatest]);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);

  return {
    sessions,
    hasMore: cursor !== null,
    loading,
    loaded,
    now,
    load,
    add: (session) => setSessions((current) => [session, ...current]),
    remove: (id) => setSessions((current) => current.filter((session) => session.id !== id)),
  };
}
