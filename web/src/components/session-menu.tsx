/**
 * What can be done to an open session from its header: Branches, Fork, Rename, Export,
 * Compact, Delete. A row of buttons on a wide screen; on a phone, one **Session actions**
 * button (⋯) that opens them as a menu, so that the header keeps to one line above the chat.
 */
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SessionActions } from '../hooks/use-session-actions.js';

export interface SessionMenuProps {
  actions: SessionActions;
  /** Branches of the session (the Branches button shows from two on). */
  branches: number;
  /** The entry Fork copies the path to; undefined: nothing to fork yet. */
  forkAt: string | undefined;
  /** The session holds a conversation: something to fork or compact. */
  started: boolean;
  /** A turn runs: no compaction, no deletion now. */
  running: boolean;
  renameButton: RefObject<HTMLButtonElement | null>;
  onBranches(): void;
  onRename(): void;
  /** Asks before Compact or Delete. */
  onConfirm(what: 'compact' | 'delete'): void;
}

export function SessionMenu({ actions, branches, forkAt, started, running, renameButton, onBranches, onRename, onConfirm }: SessionMenuProps) {
  const { working, renaming } = actions;
  const { open, setOpen, menu, toggle } = useMenu();
  /** An action chosen closes the menu (on a phone; on a wide screen there is none to close). */
  const chose = (action: () => void) => () => {
    setOpen(false);
    action();
  };
  return (
    <div class="actions-menu" ref={menu}>
      <button
        type="button"
        class="menu-toggle"
        ref={toggle}
        aria-label="Session actions"
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls="session-actions"
        onClick={() => setOpen(!open)}
      >
        ⋯
      </button>
      <div id="session-actions" class={`actions${open ? ' open' : ''}`}>
        {branches > 1 && (
          <button type="button" onClick={chose(onBranches)} disabled={working !== null}>
            Branches <span class="count">{branches}</span>
          </button>
        )}
        {started && (
          <button type="button" onClick={chose(() => forkAt && void actions.fork(forkAt))} disabled={working !== null || forkAt === undefined}>
            {working === 'fork' ? 'Forking…' : 'Fork'}
          </button>
        )}
        <button type="button" ref={renameButton} onClick={chose(onRename)} disabled={working !== null || renaming !== null}>
          Rename
        </button>
        <button type="button" onClick={chose(() => void actions.exportSession())} disabled={working !== null}>
          {working === 'export' ? 'Exporting…' : 'Export'}
        </button>
        {started && (
          <button type="button" onClick={chose(() => onConfirm('compact'))} disabled={working !== null || running}>
            {working === 'compact' ? 'Compacting…' : 'Compact'}
          </button>
        )}
        <button type="button" class="danger" onClick={chose(() => onConfirm('delete'))} disabled={working !== null || running}>
          Delete
        </button>
      </div>
    </div>
  );
}

/** The menu's state: open or not; Escape and a click elsewhere close it (Escape gives the focus back to its button). */
function useMenu() {
  const [open, setOpen] = useState(false);
  const menu = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent): void => {
      if (!menu.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return { open, setOpen, menu, toggle };
}
