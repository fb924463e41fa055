/** The sessions of the signed-in user, newest first: title, age and model; more load on scroll. */
import type { Ref } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { SessionSummary } from '../api/wire.js';
import { ageText } from '../format.js';
import { useLatest } from '../hooks/use-latest.js';
import { plainText } from '../plain-text.js';

export interface SessionListProps {
  sessions: SessionSummary[];
  selected: string | null;
  hasMore: boolean;
  loading: boolean;
  now: number;
  onSelect(id: string): void;
  onNew(): void;
  /** Loads the next page. Must not throw. */
  onMore(): void;
  /** The New session button, for the page to put the focus back on. */
  newButton: Ref<HTMLButtonElement>;
}

export function SessionList({ sessions, selected, hasMore, loading, now, onSelect, onNew, onMore, newButton }: SessionListProps) {
  const sentinel = useRef<HTMLLIElement>(null);
  const more = useLatest(onMore);
  // Observed again when the list grows, so that a sentinel still in view asks for the next page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: sessions.length is when to observe, not what is read
  useEffect(() => {
    const element = sentinel.current;
    if (!element || !hasMore || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) more.current();
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [hasMore, sessions.length, more]);

  return (
    <nav class="sessions" aria-label="Sessions">
      <div class="sessions-head">
        <span class="brand">panto</span>
        <button type="button" class="new" ref={newButton} onClick={onNew}>
          New session
        </button>
      </div>
      <ul>
        {sessions.map((session) => (
          <li key={session.id}>
            <button
              type="button"
              class="session"
              data-session={session.id}
              aria-current={session.id === selected ? 'page' : undefined}
              onClick={() => onSelect(session.id)}
            >
              <span class="session-title">{plainText(session.title ?? '') || 'Untitled session'}</span>
              <span class="session-meta">
                {ageText(session.updated_at, now)} · {session.active_model.model}
                {session.archived ? ' · archived' : ''}
              </span>
            </button>
          </li>
        ))}
        {sessions.length === 0 && !loading && <li class="empty">No sessions yet.</li>}
        {hasMore && (
          <li ref={sentinel}>
            <button type="button" class="more" onClick={onMore} disabled={loading}>
              {loading ? 'Loading…' : 'More sessions'}
            </button>
          </li>
        )}
      </ul>
    </nav>
  );
}
