/** The messages of a session, turn by turn, and the turn in progress as it streams in. */
import { useEffect, useRef } from 'preact/hooks';
import type { SessionContents } from '../api/wire.js';
import type { PendingTurn } from '../hooks/turn-runner.js';
import { groupTurns } from '../turns.js';
import { TurnView } from './turn-view.js';

export function Transcript({ contents, pending }: { contents: SessionContents | null; pending: PendingTurn | null }) {
  const log = useRef<HTMLDivElement>(null);
  // What was added shows: the transcript scrolls to its end when the messages or the turn in progress change.
  // biome-ignore lint/correctness/useExhaustiveDependencies: contents and pending are what it follows, not what it reads
  useEffect(() => {
    const element = log.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [contents, pending]);

  const turns = contents === null ? [] : groupTurns(contents.messages);
  const system = contents?.messages.find((message) => message.role === 'system');
  return (
    <div class="transcript" ref={log} aria-label="Transcript" role="log">
      {system?.role === 'system' && (
        <details class="system">
          <summary>System prompt</summary>
          <pre>{system.content}</pre>
        </details>
      )}
      {turns.map((turn) => (
        <TurnView key={turn.key} turn={turn} />
      ))}
      {pending && (
        <TurnView
          turn={{ key: 'pending', prompt: pending.prompt, replies: pending.replies, usage: null }}
          live={pending.live === '' && pending.replies.length > 0 ? undefined : pending.live}
        />
      )}
      {contents !== null && turns.length === 0 && pending === null && <p class="empty">Send a message to start.</p>}
    </div>
  );
}
