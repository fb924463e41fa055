/**
 * One session: its transcript, the composer, and what can be done to it (rename, export,
 * compact, delete). A turn streams in as it is generated; a turn already running when the
 * session opens (another tab, or before a reload) is followed until it ends.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useLatest } from '../hooks/use-latest.js';
import { ApiError, type Api, type StoredMessage, type SessionContents, type TurnEvent } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import { usageText } from '../format.js';
import { groupTurns, TurnView } from './turn-view.js';

interface Pending {
  prompt: string | null;
  replies: StoredMessage[];
  live: string;
}

export interface ChatProps {
  api: Api;
  sessionId: string;
  /** The session's title as listed (renamed, or its first prompt shortened); null when not known yet. */
  title: string | null;
  /** The session's list entry changed (title, time) or it is gone: the list reloads. Must not throw. */
  onChanged(): void;
  onDeleted(): void;
  onBack(): void;
}

const isAbort = (error: unknown): boolean => error instanceof DOMException && error.name === 'AbortError';
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function Chat({ api, sessionId, title: listedTitle, onChanged, onDeleted, onBack }: ChatProps) {
  const [contents, setContents] = useState<SessionContents | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  /** Reading the session until its running turn ends: after this tab's Stop, or after a failure to follow the turn. */
  const [waiting, setWaiting] = useState<'stop' | 'end' | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [working, setWorking] = useState<string | null>(null);
  /** The session does not exist (deleted, or another owner's): nothing here can act on it. */
  const [gone, setGone] = useState(false);
  const controller = useRef<AbortController | null>(null);
  /** False once this chat is closed: nothing it started may touch the page after that. */
  const alive = useRef(true);
  const transcript = useRef<HTMLDivElement>(null);
  const composer = useRef<HTMLTextAreaElement>(null);
  const titleInput = useRef<HTMLInputElement>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const wasRenaming = useRef(false);
  /** The title box closed with the focus in it: Rename takes the focus once it is enabled again. */
  const refocusRename = useRef(false);

  const load = async (): Promise<SessionContents | null> => {
    try {
      const next = await api.session(sessionId);
      setContents(next);
      return next;
    } catch (error) {
      setNotice(describeFailure(error));
      if (error instanceof ApiError && error.code === 'session_not_found') setGone(true);
      return null;
    }
  };

  /**
   * Runs a stream of turn events into the pending view; reloads the session when it ends.
   * `prompt` is this tab's message (back in the box if it is refused); `shown`, the prompt the
   * pending turn shows — a followed turn's own, which the session lists as `dangling_user`.
   */
  const run = async (prompt: string | null, events: (signal: AbortSignal) => AsyncGenerator<TurnEvent>, shown = prompt): Promise<void> => {
    const abort = new AbortController();
    controller.current = abort;
    let failed = false;
    let dropped = false;
    let state: Pending = { prompt: shown, replies: [], live: '' };
    setPending(state);
    try {
      for await (const event of events(abort.signal)) {
        switch (event.type) {
          case 'text-delta':
            state = { ...state, live: state.live + event.delta };
            break;
          case 'message':
            if (event.message.role === 'user') state = { ...state, prompt: event.message.content };
            else state = { ...state, replies: [...state.replies, event.message], live: event.message.role === 'assistant' ? '' : state.live };
            break;
          case 'end':
            if (event.end.error) setNotice(describeFailure(new ApiError(event.end.status ?? 500, event.end.error.code, event.end.error.message)));
            else if (event.end.incomplete_reason === 'deadline') setNotice('The turn reached its time limit; send another message to continue.');
            break;
          default:
            break;
        }
        setPending(state);
      }
    } catch (error) {
      if (!isAbort(error)) {
        // A 409 `session_busy` is another tab's turn, not a failure of ours: it is followed below.
        // So is a dropped connection (fetch's TypeError, not an answer of the API): the turn
        // goes on on the server, and is followed again.
        dropped = error instanceof TypeError;
        failed = !(error instanceof ApiError && error.code === 'session_busy') && !dropped;
        setNotice(describeFailure(error));
        if (prompt !== null && error instanceof ApiError) setDraft((current) => current || prompt);
      }
    } finally {
      controller.current = null;
      if (alive.current) {
        const next = await load();
        setPending(null);
        setWaiting(null);
        onChanged();
        // A turn still running (another tab's, or this one a moment after a stop): follow it to
        // its end — or, after a stop or a failure to follow, read the session until it has ended.
        if (dropped && next?.turn) setNotice('The connection dropped; the turn is still running on the server, and is shown again from here.');
        if (next?.turn && !abort.signal.aborted && !failed) {
          // After a drop, a second's pause: a connection that keeps failing is not retried in a tight loop.
          if (dropped) await pause(1_000);
          if (alive.current) void follow(next);
        } else if (next?.turn) void waitForEnd(abort.signal.aborted ? 'stop' : 'end');
      }
    }
  };

  const follow = (from: SessionContents): Promise<void> => run(null, (signal) => api.follow(sessionId, from.entry_count, signal), from.dangling_user);

  /** After a stop (the server notices it at its next lease renewal) or a failure to follow: reads the session until its turn has ended. */
  const waitForEnd = async (reason: 'stop' | 'end'): Promise<void> => {
    setWaiting(reason);
    for (let attempt = 0; attempt < 60 && alive.current; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const next = await load();
      if (next === null || next.turn === null) break;
    }
    setWaiting(null);
  };

  const opened = useLatest({ load, follow });
  // The page keys a chat by its session: this runs once per session opened.
  useEffect(() => {
    setContents(null);
    setPending(null);
    setNotice(null);
    setRenaming(null);
    void opened.current.load().then((next) => {
      if (next?.turn) void opened.current.follow(next);
    });
    // Opening a session puts the cursor where the next thing to do is: the message box.
    composer.current?.focus();
    alive.current = true;
    return () => {
      alive.current = false;
      controller.current?.abort();
    };
  }, [opened]);

  const isRenaming = renaming !== null;
  // A layout effect, so the title box has the focus as soon as it is drawn: an Escape typed
  // right after the Enter that opened it must reach it, not the (now disabled) Rename button.
  useLayoutEffect(() => {
    // Into the title box; and when it closes (saved, cancelled, Escape), back to Rename rather than to the page's start.
    if (isRenaming) titleInput.current?.focus();
    else if (wasRenaming.current) refocusRename.current = true;
    wasRenaming.current = isRenaming;
  }, [isRenaming]);
  useEffect(() => {
    const button = renameButton.current;
    if (!refocusRename.current || button === null || button.disabled) return;
    refocusRename.current = false;
    if (document.activeElement === null || document.activeElement === document.body) button.focus();
  });

  // What was added shows: the transcript scrolls to its end when the messages or the turn in progress change.
  // biome-ignore lint/correctness/useExhaustiveDependencies: contents and pending are what it follows, not what it reads
  useEffect(() => {
    const element = transcript.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [contents, pending]);

  const send = (text: string): void => {
    if (text.trim() === '' || pending !== null) return;
    setNotice(null);
    setDraft('');
    void run(text, (signal) => api.streamTurn(sessionId, text, signal));
  };

  /** `byKeyboard`: the focus is on the Stop button, which is disabled now — it goes to the message box instead of the page's start. */
  const stop = async (byKeyboard: boolean): Promise<void> => {
    if (byKeyboard) composer.current?.focus();
    setWaiting('stop');
    try {
      await api.stop(sessionId);
    } catch (error) {
      setNotice(describeFailure(error));
    }
    controller.current?.abort();
  };

  const act = async (name: string, action: () => Promise<void>): Promise<void> => {
    setWorking(name);
    setNotice(null);
    try {
      await action();
    } catch (error) {
      setNotice(describeFailure(error));
    } finally {
      setWorking(null);
    }
  };

  const rename = (title: string): Promise<void> =>
    act('rename', async () => {
      await api.rename(sessionId, title);
      setRenaming(null);
      onChanged();
    });

  const exportSession = (): Promise<void> =>
    act('export', async () => {
      const { url } = await api.exportSession(sessionId);
      const link = document.createElement('a');
      link.href = url;
      // The URL is the bucket's (another origin), where `download` is ignored: a new tab keeps this page.
      link.download = `${sessionId}.jsonl`;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      link.click();
    });

  const compact = (): Promise<void> =>
    act('compact', async () => {
      await api.compact(sessionId);
      await load();
    });

  const remove = (): Promise<void> =>
    act('delete', async () => {
      if (!window.confirm('Delete this session? This cannot be undone.')) return;
      await api.deleteSession(sessionId);
      onDeleted();
    });

  const running = pending !== null || waiting !== null;
  const turns = contents === null ? [] : groupTurns(contents.messages);
  const system = contents?.messages.find((message) => message.role === 'system');
  const title = listedTitle ?? turns.find((turn) => turn.prompt !== null)?.prompt ?? 'Untitled session';

  return (
    <section class="chat" aria-label="Chat">
      <header class="chat-header">
        <button type="button" class="back" onClick={onBack}>
          ‹ Sessions
        </button>
        {renaming === null ? (
          <h1 class="chat-title" title={title}>
            {gone ? 'Session not found' : contents === null ? '…' : title.slice(0, 120)}
          </h1>
        ) : (
          <form
            class="rename"
            onSubmit={(event) => {
              event.preventDefault();
              if (renaming.trim() !== '') void rename(renaming.trim());
            }}
          >
            <input
              aria-label="Title"
              value={renaming}
              maxLength={120}
              ref={titleInput}
              onInput={(event) => setRenaming(event.currentTarget.value)}
              onKeyDown={(event) => event.key === 'Escape' && setRenaming(null)}
            />
            <button type="submit">Save</button>
            <button type="button" onClick={() => setRenaming(null)}>
              Cancel
            </button>
          </form>
        )}
        {!gone && (
          <div class="actions">
            <button type="button" ref={renameButton} onClick={() => setRenaming(title)} disabled={working !== null || renaming !== null}>
              Rename
            </button>
            <button type="button" onClick={() => void exportSession()} disabled={working !== null}>
              {working === 'export' ? 'Exporting…' : 'Export'}
            </button>
            <button type="button" onClick={() => void compact()} disabled={working !== null || running}>
              {working === 'compact' ? 'Compacting…' : 'Compact'}
            </button>
            <button type="button" class="danger" onClick={() => void remove()} disabled={working !== null || running}>
              Delete
            </button>
          </div>
        )}
        {contents && (
          <p class="session-meta">
            {contents.active_model.provider}/{contents.active_model.model} · this session: {usageText(contents.usage)}
          </p>
        )}
      </header>
      <div class="transcript" ref={transcript} aria-label="Transcript" role="log">
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
      {contents?.dangling_user && !contents.turn && pending === null && (
        <div class="dangling" role="status">
          <span>Your last message got no answer (the turn failed): “{contents.dangling_user.slice(0, 200)}”</span>
          <button type="button" onClick={() => send(contents.dangling_user ?? '')}>
            Resend
          </button>
        </div>
      )}
      {waiting !== null && (
        <p class="status" role="status">
          {waiting === 'stop' ? 'Stopping the turn…' : 'Waiting for the turn to finish…'}
        </p>
      )}
      {notice && (
        <div class="notice" role="alert">
          <span>{notice}</span>
          <button type="button" aria-label="Dismiss" onClick={() => setNotice(null)}>
            ×
          </button>
        </div>
      )}
      {!gone && (
        <form
          class="composer"
          onSubmit={(event) => {
            event.preventDefault();
            send(draft);
          }}
        >
          <label class="visually-hidden" for="composer">
            Message
          </label>
          <textarea
            id="composer"
            ref={composer}
            rows={2}
            value={draft}
            placeholder="Message (Enter sends, Shift+Enter for a new line)"
            onInput={(event) => setDraft(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
                event.preventDefault();
                send(draft);
              }
            }}
          />
          {running ? (
            <button type="button" class="stop" onClick={(event) => void stop(event.detail === 0)} disabled={waiting === 'stop'}>
              Stop
            </button>
          ) : (
            <button type="submit" class="send" disabled={draft.trim() === ''}>
              Send
            </button>
          )}
        </form>
      )}
    </section>
  );
}
