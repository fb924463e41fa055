/**
 * The turn of an open session, as the page runs it: this tab's, streamed as it is generated,
 * or one already running (another tab's, or from before a reload), followed until it ends; a
 * stop; and, after a stop or a failure to follow, the session read until its turn has ended.
 * No Preact here: use-turn.ts gives it the page's state through a {@link TurnHost}.
 */
import { ApiError, type Api } from '../api/client.js';
import { type Clock, describeFailure } from '../api/failure.js';
import type { ApprovalDecision, PartialAnswer, SessionContents, StoredMessage, TurnEnd, TurnEvent } from '../api/wire.js';

/** The turn in progress as the transcript shows it, before the session is read again. */
export interface PendingTurn {
  prompt: string | null;
  replies: StoredMessage[];
  /**
   * The model's text streamed so far, before its message is stored: the text of the answer as
   * it stands (a stream's `text-delta`s add to it).
   */
  live: string;
  /** The id of the prompt this turn is a new version of (an edit): the transcript shows it in that prompt's place. */
  replaces?: string;
}

/** Where an edited prompt goes: the entry it follows (`parent_id`; null: the root), and the prompt it is a version of, when that one is stored. */
export interface Edit {
  parentId: string | null;
  replaces: string | undefined;
}

/** Reading the session until its running turn ends: after this tab's Stop, or after a failure to follow the turn. */
export type Waiting = 'stop' | 'end' | null;

/** What the runner changes on the page. None of these may throw. */
export interface TurnHost {
  api: Pick<Api, 'streamTurn' | 'streamApprovals' | 'follow' | 'stop'>;
  sessionId: string;
  /** Reads the session again (see useSession): null when that failed. */
  load(): Promise<SessionContents | null>;
  setPending(pending: PendingTurn | null): void;
  setWaiting(waiting: Waiting): void;
  /** Sets the message box: `''` once a message is sent; a refused message back (unless another was typed meanwhile). */
  setDraft(draft: (current: string) => string): void;
  /** The notice line: what happened, in words; null clears it. */
  say(notice: string | null): void;
  /** The session's list entry changed (title, time): the list reloads. */
  onChanged(): void;
}

type Events = (signal: AbortSignal) => AsyncGenerator<TurnEvent>;

const isAbort = (error: unknown): boolean => error instanceof DOMException && error.name === 'AbortError';
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The pending view after one more event of the stream. */
export function withEvent(state: PendingTurn, event: TurnEvent): PendingTurn {
  switch (event.type) {
    case 'text-delta':
      return { ...state, live: state.live + event.delta };
    case 'partial':
      // The answer as stored so far: it replaces the one shown (it only ever grows until its message comes).
      return { ...state, live: partialText(event.message) };
    case 'message':
      if (event.message.role === 'user') return { ...state, prompt: event.message.content };
      return { ...state, replies: [...state.replies, event.message], live: event.message.role === 'assistant' ? '' : state.live };
    case 'end':
      return state;
  }
}

/** The text of a partial answer, as the pending turn shows it. */
export function partialText(message: PartialAnswer['message'] | undefined): string {
  return (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** What the end of a turn tells the user, if anything: its failure (a limit's with when to try again), or that it ran out of time. */
export function endNotice(end: TurnEnd & { retry_after?: number }, clock?: Clock): string | null {
  if (end.error) return describeFailure(new ApiError(end.status ?? 500, end.error.code, end.error.message, end.retry_after ?? null), clock);
  if (end.incomplete_reason === 'deadline') return 'The turn reached its time limit; send another message to continue.';
  if (end.incomplete_reason === 'budget') return 'Your spend budget ran out during this turn; what it did so far is kept.';
  return null;
}

/** One per open chat: {@link open} when it opens, {@link close} when it closes. */
export class TurnRunner {
  #controller: AbortController | null = null;
  /** False once the chat is closed: nothing it started may touch the page after that. */
  #alive = true;

  /** `host` is read at each use, so that the runner always reaches the page's latest state. */
  constructor(private readonly host: () => TurnHost) {}

  /**
   * The session opened: shown, and its running turn followed — or, for a session created for
   * its `first` message (a new session), that message sent as its first turn.
   */
  open(first?: string): void {
    this.#alive = true;
    // A new session has nothing to show or follow yet: the turn reads it once it ends.
    if (first !== undefined) {
      this.send(first);
      return;
    }
    void this.host()
      .load()
      .then((next) => {
        // A chat closed before its first read came back follows nothing.
        if (next?.turn && this.#alive) void this.#follow(next);
      });
  }

  close(): void {
    this.#alive = false;
    this.#controller?.abort();
  }

  /**
   * Sends `text` as this tab's turn (the caller checks that none is pending) — after the
   * active branch, or, with `edit`, as a new branch from an earlier entry.
   */
  send(text: string, edit?: Edit): void {
    const { api, sessionId, say, setDraft } = this.host();
    say(null);
    if (edit === undefined) setDraft(() => '');
    void this.#run(text, (signal) => api.streamTurn(sessionId, text, signal, edit?.parentId), text, edit?.replaces);
  }

  /** Decides the tool calls the session waits on, and streams the turn they resume (the caller checks that none is pending). */
  decide(decisions: ApprovalDecision[]): void {
    const { api, sessionId, say } = this.host();
    say(null);
    void this.#run(null, (signal) => api.streamApprovals(sessionId, decisions, signal));
  }

  /** Asks the server to stop the running turn, and stops reading it. */
  async stop(): Promise<void> {
    const { api, sessionId, setWaiting, say } = this.host();
    setWaiting('stop');
    try {
      await api.stop(sessionId);
    } catch (error) {
      say(describeFailure(error));
    }
    this.#controller?.abort();
  }

  /**
   * Runs a stream of turn events into the pending view; reloads the session when it ends.
   * `prompt` is this tab's message (back in the box if it is refused); `shown`, the prompt the
   * pending turn shows — a followed turn's own, which the session lists as `dangling_user`.
   */
  async #run(prompt: string | null, events: Events, shown = prompt, replaces?: string, live = ''): Promise<void> {
    const abort = new AbortController();
    this.#controller = abort;
    let failed = false;
    let dropped = false;
    let state: PendingTurn = { prompt: shown, replies: [], live, ...(replaces === undefined ? {} : { replaces }) };
    this.host().setPending(state);
    try {
      for await (const event of events(abort.signal)) {
        state = withEvent(state, event);
        const notice = event.type === 'end' ? endNotice(event.end) : null;
        if (notice !== null) this.host().say(notice);
        this.host().setPending(state);
      }
    } catch (error) {
      if (!isAbort(error)) {
        // A 409 `session_busy` is another tab's turn, not a failure of ours: it is followed below.
        // So is a dropped connection (fetch's TypeError, not an answer of the API): the turn
        // goes on on the server, and is followed again.
        dropped = error instanceof TypeError;
        failed = !(error instanceof ApiError && error.code === 'session_busy') && !dropped;
        this.host().say(describeFailure(error));
        if (prompt !== null && error instanceof ApiError) this.host().setDraft((current) => current || prompt);
      }
    } finally {
      this.#controller = null;
      if (this.#alive) await this.#settle(abort.signal, failed, dropped);
    }
  }

  /**
   * After a stream: the session as stored. A turn still running (another tab's, or this one a
   * moment after a stop) is followed to its end — or, after a stop or a failure to follow, the
   * session is read until it has ended.
   */
  async #settle(signal: AbortSignal, failed: boolean, dropped: boolean): Promise<void> {
    const host = this.host();
    const next = await host.load();
    host.setPending(null);
    host.setWaiting(null);
    host.onChanged();
    if (dropped && next?.turn) host.say('The connection dropped; the turn is still running on the server, and is shown again from here.');
    if (next?.turn && !signal.aborted && !failed) {
      // After a drop, a second's pause: a connection that keeps failing is not retried in a tight loop.
      if (dropped) await delay(1_000);
      if (this.#alive) void this.#follow(next);
    } else if (next?.turn) void this.#waitForEnd(signal.aborted ? 'stop' : 'end');
  }

  #follow(from: SessionContents): Promise<void> {
    const { api, sessionId } = this.host();
    // A reload mid-answer shows the answer as stored so far at once; the follower's `partial` events carry it on.
    return this.#run(
      null,
      (signal) => api.follow(sessionId, from.entry_count, signal),
      from.dangling_user,
      undefined,
      partialText(from.turn?.partial?.message),
    );
  }

  /** After a stop (the server notices it at its next lease renewal) or a failure to follow: reads the session until its turn has ended. */
  async #waitForEnd(reason: 'stop' | 'end'): Promise<void> {
    this.host().setWaiting(reason);
    for (let attempt = 0; attempt < 60 && this.#alive; attempt++) {
      await delay(500);
      const next = await this.host().load();
      if (next === null || next.turn === null) break;
    }
    this.host().setWaiting(null);
  }
}
