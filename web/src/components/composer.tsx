/** The message box of a chat, with Send — or Stop while a turn runs. */
import { useEffect, useRef } from 'preact/hooks';

export interface ComposerProps {
  draft: string;
  onDraft(draft: string): void;
  /** A turn runs (or the page waits for one to end): Stop instead of Send. */
  running: boolean;
  /** Stop was asked for: it cannot be asked again. */
  stopping: boolean;
  onSend(text: string): void;
  onStop(): void;
}

export function Composer({ draft, onDraft, running, stopping, onSend, onStop }: ComposerProps) {
  const box = useRef<HTMLTextAreaElement>(null);
  // Opening a session puts the cursor where the next thing to do is: the message box.
  useEffect(() => {
    box.current?.focus();
  }, []);
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        onSend(draft);
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
        placeholder="Message (Enter sends, Shift+Enter for a new line)"
        onInput={(event) => onDraft(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            onSend(draft);
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
        <button type="submit" class="send" disabled={draft.trim() === ''}>
          Send
        </button>
      )}
    </form>
  );
}
