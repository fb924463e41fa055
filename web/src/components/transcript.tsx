/**
 * The messages of a session, turn by turn, and the turn in progress as it streams in: each
 * prompt with Edit and its branch switcher, each compaction with what it replaced one click
 * away, code blocks with Copy code, and a prompt that got no answer with Resend.
 */
import { useEffect, useRef } from 'preact/hooks';
import type { SessionContents } from '../api/wire.js';
import { editParent } from '../branches.js';
import type { PendingTurn } from '../hooks/turn-runner.js';
import type { EarlierMessages, PromptControls } from '../hooks/use-branches.js';
import { groupTurns } from '../turns.js';
import { copyCodeBlock } from './copy-code.js';
import { PromptView } from './prompt-view.js';
import { type CompactionMessage, CompactionSummary, TurnView } from './turn-view.js';

export interface TranscriptProps {
  contents: SessionContents | null;
  pending: PendingTurn | null;
  /** Edit and the branch switcher of each prompt; undefined when nothing may change. */
  controls: PromptControls | undefined;
  earlier: EarlierMessages;
  /** The id of the unanswered prompt (`dangling_user`), when the log says which it is. */
  danglingId: string | undefined;
  onResend(text: string): void;
}

/** Keeps the transcript at its end as it grows — unless the reader scrolled up; a turn starting brings it back. */
function useStickToEnd(contents: SessionContents | null, pending: PendingTurn | null) {
  const log = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);
  const wasPending = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: contents and pending are what it follows, not what it reads
  useEffect(() => {
    const element = log.current;
    const started = pending !== null && !wasPending.current;
    wasPending.current = pending !== null;
    if (element && (atEnd.current || started)) element.scrollTop = element.scrollHeight;
  }, [contents, pending]);
  const onScroll = (): void => {
    const element = log.current;
    if (element) atEnd.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
  };
  // One listener for every Copy code button: they are in the sanitised HTML of the messages.
  useEffect(() => {
    const element = log.current;
    const onClick = (event: MouseEvent): void => copyCodeBlock(event.target);
    element?.addEventListener('click', onClick);
    return () => element?.removeEventListener('click', onClick);
  }, []);
  return { log, onScroll };
}

export function Transcript({ contents, pending, controls, earlier, danglingId, onResend }: TranscriptProps) {
  const { log, onScroll } = useStickToEnd(contents, pending);
  const all = contents === null ? [] : groupTurns(contents.messages);
  // An edited prompt streams in place of its old version: the turns from it on are not shown meanwhile.
  const cut = pending?.replaces === undefined ? -1 : all.findIndex((turn) => turn.key === pending.replaces);
  const turns = cut < 0 ? all : all.slice(0, cut);
  const system = contents?.messages.find((message) => message.role === 'system');
  const dangling = contents?.dangling_user && !contents.turn && pending === null ? contents.dangling_user : null;

  const compaction = (message: CompactionMessage) => <CompactionView message={message} earlier={earlier} />;
  return (
    <div class="transcript" ref={log} aria-label="Transcript" role="log" onScroll={onScroll}>
      {system?.role === 'system' && (
        <details class="system">
          <summary>System prompt</summary>
          <pre>{system.content}</pre>
        </details>
      )}
      {turns.map((turn) => (
        <TurnView
          // By the entry the prompt follows, which its versions share: a branch switched to keeps the switcher (and its focus) where it was.
          key={turn.previous === undefined ? 'first' : (turn.previous.id ?? turn.key)}
          turn={turn}
          compaction={compaction}
          prompt={turn.prompt !== null && <PromptView text={turn.prompt} id={turn.key} parentId={editParent(turn.previous)} controls={controls} />}
        />
      ))}
      {pending && (
        <TurnView
          turn={{ key: 'pending', prompt: pending.prompt, previous: undefined, replies: pending.replies, usage: null }}
          live={pending.live === '' && pending.replies.length > 0 ? undefined : pending.live}
        />
      )}
      {dangling !== null && contents && (
        <article class="turn">
          <PromptView text={dangling} id={danglingId} parentId={editParent(contents.messages.at(-1))} controls={controls} />
          <div class="dangling" role="status">
            <span>No answer: the turn failed before the model replied.</span>
            <button type="button" onClick={() => onResend(dangling)}>
              Resend
            </button>
          </div>
        </article>
      )}
      {contents !== null && turns.length === 0 && pending === null && dangling === null && <p class="empty">Send a message to start.</p>}
    </div>
  );
}

/** A compaction: its summary, and the messages it replaced behind Show earlier messages. */
function CompactionView({ message, earlier }: { message: CompactionMessage; earlier: EarlierMessages }) {
  const id = message.id;
  const shown = id === undefined ? undefined : earlier.shown.get(id);
  const regionId = `earlier-${id ?? 'none'}`;
  return (
    <section class="compaction" aria-label="Compaction">
      <div class="compaction-head">
        <span>Compacted: the model sees this summary instead of the messages before it.</span>
        {id !== undefined && (
          <button type="button" class="quiet" aria-expanded={shown !== undefined} aria-controls={regionId} onClick={() => earlier.toggle(id)}>
            {earlier.loading === id ? 'Reading…' : shown === undefined ? 'Show earlier messages' : 'Hide earlier messages'}
          </button>
        )}
      </div>
      {shown !== undefined && (
        <section class="earlier" id={regionId} aria-label="Earlier messages">
          {groupTurns(shown).map((turn) => (
            <TurnView key={turn.key} turn={turn} />
          ))}
          {shown.length === 0 && <p class="empty">Nothing before it is stored in this session.</p>}
        </section>
      )}
      <CompactionSummary message={message} />
    </section>
  );
}
