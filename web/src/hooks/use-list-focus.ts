/**
 * Where the focus goes when what had it closes (the new-session form, a deleted chat, a chat
 * left with ‹ Sessions on a phone) — once the list shows again: the session left, or New
 * session. Without it the focus falls to the page's start.
 */
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface ListFocus {
  /** The list's New session button. */
  newButton: RefObject<HTMLButtonElement | null>;
  /** Puts the focus on `session`'s entry in the list, or on New session (null, or not listed). */
  focusList(session: string | null): void;
}

export function useListFocus(): ListFocus {
  const newButton = useRef<HTMLButtonElement>(null);
  const [refocus, setRefocus] = useState<{ session: string | null; count: number }>({ session: null, count: 0 });
  useEffect(() => {
    if (refocus.count === 0) return;
    const item =
      refocus.session === null ? null : document.querySelector<HTMLButtonElement>(`nav.sessions button[data-session="${CSS.escape(refocus.session)}"]`);
    (item ?? newButton.current)?.focus();
  }, [refocus]);
  return { newButton, focusList: (session) => setRefocus((last) => ({ session, count: last.count + 1 })) };
}
