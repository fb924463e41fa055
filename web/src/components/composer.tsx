/**
 * The message box of a chat, with Send — or Stop while a turn runs. With a keyboard, Enter
 * sends and Shift+Enter starts a new line; on a touch screen (no Shift key) Enter starts a new
 * line and Send sends, as the phone chat apps do.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

export interface ComposerProps {
  draft: string;
  onDraft(draft: string): void;
  /** A turn runs (or the page waits for one to end): Stop instead of Send. */
  running: boolean;
  /** Stop was asked for: it cannot be asked again. */
  stopping: boolean;
  /** The message is on its way (a new session being created for it): Send waits. */
  sending?: boolean;
  onSend(text: string): void;
  onStop(): void;
  /** Escape in the box. */
  onEscape?: () => void;
}

/** Whether the page is used with touch alone: no fine pointer, so most likely no keyboard with a Shift key either. */
function useTouchOnly(): boolean {
  const [query] = useState(() => (typeof window.matchMedia === 'function' ? window.matchMedia('(any-pointer: fine)') : null));
  const [touch, setTouch] = useState(query !== null && !query.matches);
  useEffect(() => {
    if (query === null) return;
    const onChange = (): void => setTouch(!query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, [query]);
  return touch;
}

export function Composer({ draft, onDraft, running, stopping, sending = false, onSend, onStop, onEscape }: ComposerProps) {
  const box = useRef<HTMLTextAreaElement>(null);
  const touch = useTouchOnly();
  // Opening a session puts the cursor where the next thing to do is: the message box.
  useEffect(() => {
    box.current?.focus();
  }, []);
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        if (!sending) onSend(draft);
      }}
    >
      <label class="visually-hidden" for="composer">
        Message
      </label>
      <textarea
        id="composer"
        ref={box}
        rows={2}
        value={draft}
        placeholder={touch ? 'Message' : 'Message (Enter sends, Shift+Enter for a new line)'}
        onInput={(event) => onDraft(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onEscape?.();
          else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && !touch) {
            event.preventDefault();
            if (!sending) onSend(draft);
          }
        }}
      />
      {running ? (
        <button
          type="button"
          class="stop"
          onClick={(event) => {
            // Pressed with the keyboard (no click count), the focus is on Stop, which is disabled now:
            // it goes to the message box instead of the page's start.
            if (event.detail === 0) box.current?.focus();
            onStop();
          }}
          disabled={stopping}
        >
          Stop
        </button>
      ) : (
        <button type="submit" class="send" disabled={draft.trim() === '' || sending}>
          Send
        </button>
      )}
    </form>
  );
}
