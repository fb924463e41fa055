/** The turn of the open chat and its message box: sending, following, stopping (the logic is turn-runner.ts). */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { ApprovalDecision, SessionContents } from '../api/wire.js';
import { type Edit, type PendingTurn, TurnRunner, type Waiting } from './turn-runner.js';
import { useLatest } from './use-latest.js';

export interface TurnOptions {
  api: Api;
  sessionId: string;
  /** Reads the session again (useSession's `load`). */
  load(): Promise<SessionContents | null>;
  /** Sets the chat's notice line; null clears it. Must not throw. */
  say(notice: string | null): void;
  /** The session's list entry changed: the list reloads. Must not throw. */
  onChanged(): void;
  /** The first message of a session created for it: sent as the chat opens. */
  first?: string | undefined;
}

export interface OpenTurn {
  /** The turn in progress (this tab's or a followed one), until the session is read again. */
  pending: PendingTurn | null;
  waiting: Waiting;
  /** A turn is pending, or the page waits for one to end: no other may start. */
  running: boolean;
  /** What is in the message box. */
  draft: string;
  setDraft(draft: string): void;
  /** Sends `text` as a turn (with `edit`, a new version of an earlier prompt), unless it is blank or a turn is pending. */
  send(text: string, edit?: Edit): void;
  /** Decides the tool calls the session waits on, and streams the turn they resume, unless a turn is pending. */
  decide(decisions: ApprovalDecision[]): void;
  stop(): void;
}

/** Opening the chat (the page keys a chat by its session: once per session opened) follows a turn already running. */
export function useTurn({ api, sessionId, load, say, onChanged, first }: TurnOptions): OpenTurn {
  const [pending, setPending] = useState<PendingTurn | null>(null);
  const [waiting, setWaiting] = useState<Waiting>(null);
  const [draft, setDraft] = useState('');
  const host = useLatest({ api, sessionId, load, say, onChanged, setPending, setWaiting, setDraft });
  const [runner] = useState(() => new TurnRunner(() => host.current));
  // Once per chat (the page keys a chat by its session): a first message is sent once.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `first` is read as the chat opens, not followed
  useEffect(() => {
    runner.open(first);
    return () => runner.close();
  }, [runner]);
  return {
    pending,
    waiting,
    running: pending !== null || waiting !== null,
    draft,
    setDraft,
    send: (text, edit) => {
      if (text.trim() !== '' && pending === null) runner.send(text, edit);
    },
    decide: (decisions) => {
      if (pending === null) runner.decide(decisions);
    },
    stop: () => void runner.stop(),
  };
}
