/**
 * What the main column shows: the open session — kept in the fragment (`#session=<id>`), so
 * that a reload, a bookmark and the browser's Back keep it — or a new session; and how the
 * open session came to be, when it just did.
 */
import { useEffect, useState } from 'preact/hooks';

function sessionInHash(): string | null {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).get('session');
}

function showSession(id: string | null): void {
  const url = `${window.location.pathname}${window.location.search}${id === null ? '' : `#session=${encodeURIComponent(id)}`}`;
  window.history.pushState(null, '', url);
}

/** The session a fork was made from, as the fork's chat names it. */
export interface ForkedFrom {
  id: string;
  title: string;
}

/** How a session just opened came to be: created for its first message, or forked from another. */
export interface Arrival {
  sessionId: string;
  firstPrompt?: string;
  forkedFrom?: ForkedFrom;
}

export interface Selection {
  /** The open session's id; null: none is open. */
  selected: string | null;
  /** A new session is open (over the open session, if any). */
  creating: boolean;
  setCreating(creating: boolean): void;
  /** Opens a session (null: none), closing a new session, and puts it in the address bar. */
  open(id: string | null): void;
  /** How the open session came to be, said once; null for one opened from the list, a link or a reload. */
  arrival: Arrival | null;
  /** Opens a session that just came to be. */
  arrive(arrival: Arrival): void;
}

export function useSelection(): Selection {
  const [selected, setSelected] = useState<string | null>(sessionInHash);
  const [creating, setCreating] = useState(false);
  const [arrival, setArrival] = useState<Arrival | null>(null);
  useEffect(() => {
    const onHash = (): void => setSelected(sessionInHash());
    window.addEventListener('popstate', onHash);
    return () => window.removeEventListener('popstate', onHash);
  }, []);
  // Said once: a session left (and come back to) opens as any other — its first message is not sent again.
  useEffect(() => {
    if (arrival !== null && arrival.sessionId !== selected) setArrival(null);
  }, [arrival, selected]);
  const open = (id: string | null): void => {
    setCreating(false);
    setSelected(id);
    showSession(id);
  };
  return {
    selected,
    creating,
    setCreating,
    open,
    arrival: arrival !== null && arrival.sessionId === selected ? arrival : null,
    arrive: (next) => {
      setArrival(next);
      open(next.sessionId);
    },
  };
}
