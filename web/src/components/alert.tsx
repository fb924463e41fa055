/** How the page says what went wrong: a line the screen reader announces (`role="alert"`). */

/** `message` as an alert, or nothing when there is none. */
export function Alert({ message }: { message: string | null }) {
  return message ? (
    <p class="notice" role="alert">
      {message}
    </p>
  ) : null;
}

/** An alert the user can dismiss (×): what happened to a session while it is open. */
export function DismissibleAlert({ message, onDismiss }: { message: string | null; onDismiss(): void }) {
  return message ? (
    <div class="notice" role="alert">
      <span>{message}</span>
      <button type="button" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </div>
  ) : null;
}
