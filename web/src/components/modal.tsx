/**
 * A modal dialog: the browser's own `<dialog>` opened with `showModal()` — the rest of the
 * page inert behind it, the focus kept inside, Escape closing it, and the focus given back
 * to what had it before — in the page's colours.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useLatest } from '../hooks/use-latest.js';

export interface ModalProps {
  /** The id of its heading, which names it. */
  labelledBy: string;
  class?: string;
  /** Closed by Escape (or by the page): the caller stops rendering it. Must not throw. */
  onClose(): void;
  children: ComponentChildren;
}

export function Modal({ labelledBy, class: className, onClose, children }: ModalProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useLatest(onClose);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    element.showModal();
    const onCancel = (event: Event): void => {
      event.preventDefault();
      close.current();
    };
    element.addEventListener('cancel', onCancel);
    return () => {
      element.removeEventListener('cancel', onCancel);
      element.close();
    };
  }, [close]);
  return (
    <dialog ref={dialog} class={`modal${className ? ` ${className}` : ''}`} aria-labelledby={labelledBy}>
      {children}
    </dialog>
  );
}

export interface ConfirmProps {
  title: string;
  /** What happens, in a sentence or two. */
  message: string;
  /** The button that does it: "Compact", "Delete". */
  confirm: string;
  danger?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/** Asks before an action that cannot be taken back in the page; Cancel has the focus, Escape cancels. */
export function ConfirmDialog({ title, message, confirm, danger, onConfirm, onCancel }: ConfirmProps) {
  return (
    <Modal labelledBy="confirm-title" onClose={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <p>{message}</p>
      <div class="form-actions">
        <button type="button" class={danger ? 'danger-strong' : 'primary'} onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" autofocus onClick={onCancel}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
