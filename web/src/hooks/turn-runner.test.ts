import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client.js';
import type { SessionContents, StoredMessage, TurnEvent } from '../api/wire.js';
import { endNotice, type PendingTurn, type TurnHost, TurnRunner, type Waiting, withEvent } from './turn-runner.js';

const usage = { input_tokens: 3, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 };
const answer: StoredMessage = {
  role: 'assistant',
  content: [{ type: 'text', text: 'Hi there' }],
  provider: 'anthropic',
  model: 'm',
  usage,
  stop_reason: 'end_turn',
};
const toolResult: StoredMessage = { role: 'tool_result', tool_call_id: 't1', tool_name: 'current_time', content: 'noon', is_error: false };

function contents(turn: SessionContents['turn'], entryCount = 2): SessionContents {
  return {
    id: 's1',
    messages: [],
    dangling_user: null,
    active_model: { provider: 'anthropic', model: 'm' },
    usage,
    turns: [],
    entry_count: entryCount,
    turn,
    pending_approvals: [],
  };
}
const RUNNING = { running: true, started_at: null, stop_requested: false, partial: null } as const;

async function* stream(events: TurnEvent[], failure?: unknown): AsyncGenerator<TurnEvent> {
  for (const event of events) yield event;
  if (failure !== undefined) throw failure;
}

/** A host that records what the runner does to the page; `loads` are what the session reads answer, in turn. */
function fakeHost(api: Partial<TurnHost['api']>, loads: (SessionContents | null)[]) {
  const seen = { pending: [] as (PendingTurn | null)[], waiting: [] as Waiting[], notices: [] as (string | null)[], draft: 'typed', changed: 0, loads: 0 };
  const host: TurnHost = {
    api: {
      streamTurn: api.streamTurn ?? (() => stream([])),
      streamApprovals: api.streamApprovals ?? (() => stream([])),
      follow: api.follow ?? (() => stream([])),
      stop: api.stop ?? (async () => true),
    },
    sessionId: 's1',
    load: async () => {
      seen.loads++;
      return loads.shift() ?? contents(null);
    },
    setPending: (pending) => seen.pending.push(pending),
    setWaiting: (waiting) => seen.waiting.push(waiting),
    setDraft: (update) => {
      seen.draft = update(seen.draft);
    },
    say: (notice) => seen.notices.push(notice),
    onChanged: () => seen.changed++,
  };
  return { host, seen };
}

describe('withEvent', () => {
  const start: PendingTurn = { prompt: 'Hello', replies: [], live: '' };
  it('adds streamed text to the live answer, and a stored assistant message replaces it', () => {
    const streamed = withEvent(withEvent(start, { type: 'text-delta', delta: 'Hi' }), { type: 'text-delta', delta: ' there' });
    expect(streamed.live).toBe('Hi there');
    expect(withEvent(streamed, { type: 'message', message: answer })).toEqual({ prompt: 'Hello', replies: [answer], live: '' });
  });

  it('keeps the live text across a tool result, takes a stored prompt as the prompt, and ignores the end', () => {
    const live = { ...start, live: 'so far' };
    expect(withEvent(live, { type: 'message', message: toolResult })).toEqual({ prompt: 'Hello', replies: [toolResult], live: 'so far' });
    expect(withEvent({ ...start, prompt: null }, { type: 'message', message: { role: 'user', content: 'Followed' } }).prompt).toBe('Followed');
    expect(withEvent(live, { type: 'end', end: { incomplete: false } })).toBe(live);
  });
});

describe('endNotice', () => {
  it("says a failed turn's error in words, that a turn ran out of time, and nothing for a turn that ended well", () => {
    expect(endNotice({ status: 409, error: { code: 'session_busy', message: 'busy' } })).toMatch(/^A turn is already running/);
    expect(endNotice({ incomplete: true, incomplete_reason: 'deadline' })).toMatch(/time limit/);
    expect(endNotice({ incomplete: false, stop_reason: 'end_turn', usage })).toBeNull();
  });

  it('says a limit refused the turn and when to try again, and that a budget stopped one midway', () => {
    expect(endNotice({ status: 429, error: { code: 'budget_exceeded', message: 'spent' }, retry_after: 3600 })).toBe(
      'You have used up your spend budget, so this message was not sent. Try again in 60 min.',
    );
    expect(endNotice({ status: 429, error: { code: 'rate_limited', message: 'too many' }, retry_after: 12 })).toBe(
      'You have started as many turns as you may for now, so this message was not sent. Try again in 12 s.',
    );
    expect(endNotice({ incomplete: true, incomplete_reason: 'budget' })).toMatch(/budget ran out during this turn/);
  });
});

describe('TurnRunner', () => {
  it('streams a sent turn into the pending view, then reads the session and tells the list', async () => {
    const { host, seen } = fakeHost(
      {
        streamTurn: () =>
          stream([
            { type: 'text-delta', delta: 'Hi' },
            { type: 'message', message: answer },
          ]),
      },
      [],
    );
    new TurnRunner(() => host).send('Hello');
    await vi.waitFor(() => expect(seen.changed).toBe(1));
    expect(seen.draft).toBe('');
    expect(seen.notices).toEqual([null]);
    expect(seen.pending).toEqual([
      { prompt: 'Hello', replies: [], live: '' },
      { prompt: 'Hello', replies: [], live: 'Hi' },
      { prompt: 'Hello', replies: [answer], live: '' },
      null,
    ]);
  });

  it('streams the turn a decision resumes, without a prompt, leaving the message box alone, then reads the session', async () => {
    const decided: unknown[] = [];
    const { host, seen } = fakeHost(
      {
        streamApprovals: (_id, decisions) => {
          decided.push(decisions);
          return stream([
            { type: 'message', message: toolResult },
            { type: 'message', message: answer },
          ]);
        },
      },
      [],
    );
    new TurnRunner(() => host).decide([{ tool_call_id: 't1', decision: 'approve' }]);
    await vi.waitFor(() => expect(seen.changed).toBe(1));
    expect(decided).toEqual([[{ tool_call_id: 't1', decision: 'approve' }]]);
    expect(seen.draft).toBe('typed');
    expect(seen.pending).toEqual([
      { prompt: null, replies: [], live: '' },
      { prompt: null, replies: [toolResult], live: '' },
      { prompt: null, replies: [toolResult, answer], live: '' },
      null,
    ]);
  });

  it("sends a new session's first message as it opens — nothing read or followed before it, the session read once after", async () => {
    const streamTurn = vi.fn(() => stream([{ type: 'message', message: answer }]));
    const follow = vi.fn(() => stream([]));
    const { host, seen } = fakeHost({ streamTurn, follow }, []);
    new TurnRunner(() => host).open('My first message');
    expect(seen.pending[0]).toEqual({ prompt: 'My first message', replies: [], live: '' });
    await vi.waitFor(() => expect(seen.changed).toBe(1));
    expect(streamTurn).toHaveBeenCalledTimes(1);
    expect(follow).not.toHaveBeenCalled();
    expect(seen.loads).toBe(1);
  });

  it('sends an edited prompt as a new branch: its parent to the server, the prompt it replaces to the view, the message box left alone', async () => {
    const streamTurn = vi.fn((_id: string, _text: string, _signal: AbortSignal, _parent?: string | null) => stream([{ type: 'message', message: answer }]));
    const { host, seen } = fakeHost({ streamTurn }, []);
    new TurnRunner(() => host).send('Say it differently', { parentId: 'a1', replaces: 'u2' });
    await vi.waitFor(() => expect(seen.changed).toBe(1));
    expect(streamTurn).toHaveBeenCalledWith('s1', 'Say it differently', expect.any(AbortSignal), 'a1');
    expect(seen.pending[0]).toEqual({ prompt: 'Say it differently', replies: [], live: '', replaces: 'u2' });
    expect(seen.draft).toBe('typed');
  });

  it('shows the stored answer so far at once when a reload finds a turn running, then each newer one, then the message', async () => {
    const partial = (text: string) => ({ role: 'assistant' as const, content: [{ type: 'text' as const, text }], provider: 'anthropic', model: 'm', usage });
    const follow = vi.fn(() =>
      stream([
        { type: 'partial', message: partial('Hi th') },
        { type: 'message', message: answer },
      ]),
    );
    const running = { ...RUNNING, partial: { message: partial('Hi'), updated_at: '2026-12-02T10:00:00.000Z' } };
    const { host, seen } = fakeHost({ follow }, [{ ...contents(running, 4), dangling_user: 'Hello' }]);
    new TurnRunner(() => host).open();
    await vi.waitFor(() => expect(seen.changed).toBe(1));
    expect(follow).toHaveBeenCalledWith('s1', 4, expect.any(AbortSignal));
    // No gap (the text is there before the first event) and no repeat (each partial replaces the last).
    expect(seen.pending.slice(0, 3).map((pending) => pending?.live)).toEqual(['Hi', 'Hi th', '']);
    expect(seen.pending[2]).toMatchObject({ prompt: 'Hello', replies: [answer] });
  });

  it("puts a refused prompt back in the box and follows the other tab's turn that holds the session", async () => {
    const follow = vi.fn(() => stream([{ type: 'message', message: answer }]));
    const busy = new ApiError(409, 'session_busy', 'a turn is already running');
    const { host, seen } = fakeHost({ streamTurn: () => stream([], busy), follow }, [contents(RUNNING, 7)]);
    seen.draft = '';
    new TurnRunner(() => host).send('Mine');
    await vi.waitFor(() => expect(seen.changed).toBe(2));
    expect(seen.draft).toBe('Mine');
    expect(seen.notices[1]).toMatch(/^A turn is already running/);
    expect(follow).toHaveBeenCalledWith('s1', 7, expect.any(AbortSignal));
  });

  it('does not follow again after another failure: it reads the session until the turn has ended', async () => {
    const { host, seen } = fakeHost({ streamTurn: () => stream([], new ApiError(500, 'internal_error', 'boom')) }, [contents(RUNNING), contents(null)]);
    new TurnRunner(() => host).send('Hello');
    await vi.waitFor(() => expect(seen.waiting).toEqual([null, 'end', null]));
    expect(seen.loads).toBe(2);
  });

  it('stops: asks the server, stops reading, and waits for the turn to end', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const stop = vi.fn(async () => true);
    const slow = async function* (_id: string, _text: string, signal: AbortSignal): AsyncGenerator<TurnEvent> {
      yield { type: 'text-delta', delta: 'Once' };
      signal.addEventListener('abort', () => release());
      await held;
      throw new DOMException('aborted', 'AbortError');
    };
    const { host, seen } = fakeHost({ streamTurn: slow, stop }, [contents(RUNNING), contents(null)]);
    const runner = new TurnRunner(() => host);
    runner.send('Hello');
    await vi.waitFor(() => expect(seen.pending).toHaveLength(2));
    await runner.stop();
    await vi.waitFor(() => expect(seen.waiting.at(-1)).toBe(null));
    expect(stop).toHaveBeenCalledWith('s1');
    expect(seen.waiting).toEqual(['stop', null, 'stop', null]);
    expect(seen.notices).toEqual([null]);
  });

  it('touches nothing once it is closed: the stream is let go, the session not read again', async () => {
    const slow = async function* (_id: string, _text: string, signal: AbortSignal): AsyncGenerator<TurnEvent> {
      yield { type: 'text-delta', delta: 'Once' };
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      throw new DOMException('aborted', 'AbortError');
    };
    const { host, seen } = fakeHost({ streamTurn: slow }, []);
    const runner = new TurnRunner(() => host);
    runner.send('Hello');
    await vi.waitFor(() => expect(seen.pending).toHaveLength(2));
    runner.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.loads).toBe(0);
    expect(seen.changed).toBe(0);
    expect(seen.pending).toHaveLength(2);
  });
});
