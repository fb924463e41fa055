/**
 * What the main column shows: the open session — kept in the fragment (`#session=<id>`), so
 * that a reload, a bookmark and the browser's Back keep it — or the new-session form.
 */
import { useEffect, useState } from 'preact/hooks';

function sessionInHash(): string | null {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).get('session');
}

function showSession(id: string | null): void {
  const url = `${window.location.pathname}${window.location.search}${id === null ? '' : `#session=${encodeURIComponent(id)}`}`;
  window.history.pushState(null, '', url);
}

export interface Selection {
  /** The open session's id; null: none is open. */
  selected: string | null;
  /** The new-session form is open (over the open session, if any). */
  creating: boolean;
  setCreating(creating: boolean): void;
  /** Opens a session (null: none), closing the new-session form, and puts it in the address bar. */
  open(id: string | null): void;
}

export function useSelection(): Selection {
  const [selected, setSelected] = useState<string | null>(sessionInHash);
  const [creating, setCreating] = useState(false);
  useEffect(() => {
    const onHash = (): void => setSelected(sessionInHash());
    window.addEventListener('popstate', onHash);
    return () => window.removeEventListener('popstate', onHash);
  }, []);
  return {
    selected,
    creating,
    setCreating,
    open: (id) => {
      setCreating(false);
      setSelected(id);
      showSession(id);
    },
  };
}
