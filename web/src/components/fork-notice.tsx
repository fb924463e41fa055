/**
 * What a fork's chat says as it opens: that this is the fork — a new session, a copy of the
 * branch shown — and not the session it came from, which stays as it was, one click away.
 */
import { useState } from 'preact/hooks';
import type { ForkedFrom } from '../hooks/use-selection.js';

export function ForkNotice({ from, onOpen }: { from: ForkedFrom; onOpen(sessionId: string): void }) {
  const [shown, setShown] = useState(true);
  if (!shown) return null;
  return (
    <div class="status fork-notice" role="status">
      <span>
        You are in a fork of “{from.title.slice(0, 80)}”: a new session with a copy of its branch. What you send here stays here; the original is unchanged.
      </span>
      <span class="fork-notice-actions">
        <button type="button" class="quiet" onClick={() => onOpen(from.id)}>
          Open the original
        </button>
        <button type="button" class="quiet" aria-label="Dismiss" onClick={() => setShown(false)}>
          ×
        </button>
      </span>
    </div>
  );
}
