/**
 * Where the focus goes around the title box: into it as it opens, and back to Rename as it
 * closes (saved, cancelled, Escape) — not to the page's start.
 */
import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';

export interface RenameFocus {
  titleInput: RefObject<HTMLInputElement | null>;
  renameButton: RefObject<HTMLButtonElement | null>;
}

export function useRenameFocus(isRenaming: boolean): RenameFocus {
  const titleInput = useRef<HTMLInputElement>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const wasRenaming = useRef(false);
  /** The title box closed with the focus in it: Rename takes the focus once it is enabled again. */
  const refocusRename = useRef(false);

  // A layout effect, so the title box has the focus as soon as it is drawn: an Escape typed
  // right after the Enter that opened it must reach it, not the (now disabled) Rename button.
  useLayoutEffect(() => {
    if (isRenaming) titleInput.current?.focus();
    else if (wasRenaming.current) refocusRename.current = true;
    wasRenaming.current = isRenaming;
  }, [isRenaming]);
  // After every render: Rename may have been enabled again by it.
  useEffect(() => {
    const button = renameButton.current;
    if (!refocusRename.current || button === null || button.disabled) return;
    refocusRename.current = false;
    if (document.activeElement === null || document.activeElement === document.body) button.focus();
  });

  return { titleInput, renameButton };
}
