import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../messages.js';
import { RecordFactory, usage } from '../testing/fixtures.js';
import { type BuiltLog, SessionLog } from './log.js';
import { rebuildConversation } from './rebuild.js';
import type { DiskMessage, LoadedSession, SessionEntry } from './records.js';

/** A small deterministic PRNG (mulberry32): the same seed, the same session. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function callingAssistant(f: RecordFactory, calls: string[], awaiting: boolean): DiskMessage {
  const message: AssistantMessage = {
    role: 'assistant',
    content: [{ type: 'text', text: 'let me look' }, ...calls.map((id) => ({ type: 'tool_call' as const, id, name: 'read', input: { id } }))],
    provider: 'p',
    model: awaiting ? 'm-awaiting' : 'm-tools',
    usage: usage(3, 4),
    stop_reason: awaiting ? 'awaiting_approval' : 'tool_use',
    ...(awaiting ? { approval_requests: calls.map((id) => ({ tool_call_id: id, reason: 'asks' })) } : {}),
  };
  return f.message(message);
}

function toolResult(f: RecordFactory, id: string): DiskMessage {
  return f.message({ role: 'tool_result', tool_call_id: id, tool_name: 'read', content: `result of ${id}`, is_error: false });
}

/** What one step of a session writes: a batch, a switch of the active leaf, or a load at an earlier entry. */
type Step = { batch: DiskMessage[] } | { switchTo: string } | { loadAt: string | null };

function nextStep(f: RecordFactory, next: () => number, entries: readonly SessionEntry[]): Step {
  const pick = next();
  const earlier = entries[Math.floor(next() * entries.length)]?.id;
  const call = (): string => `call-${f.nextId()}`;
  if (pick < 0.25) return { batch: [f.user(`prompt ${entries.length}`, 'p', next() < 0.5 ? 'm1' : 'm2')] };
  if (pick < 0.45) return { batch: [f.assistant(`answer ${entries.length}`, { provider: 'p', model: 'm3' })] };
  if (pick < 0.55) {
    const calls = [call(), call()];
    const answered = next() < 0.7 ? calls : calls.slice(0, 1);
    return { batch: [callingAssistant(f, calls, false), ...answered.map((id) => toolResult(f, id))] };
  }
  if (pick < 0.62) return { batch: [callingAssistant(f, [call()], true)] };
  if (pick < 0.68) {
    const id = `call-${f.nextId()}`;
    const approval: DiskMessage = {
      type: 'approval',
      id: f.nextId(),
      timestamp: '2026-01-01T00:00:00.000Z',
      decisions: [{ tool_call_id: id, decision: 'deny' }],
    };
    return { batch: [approval, toolResult(f, id)] };
  }
  if (pick < 0.74) return { batch: [f.message({ role: 'system', content: `rule ${entries.length}`, mode: next() < 0.5 ? 'append' : 'replace' })] };
  if (pick < 0.78) {
    const compaction: DiskMessage = {
      type: 'compaction',
      id: f.nextId(),
      timestamp: '2026-01-01T00:00:00.000Z',
      summary: `summary at ${entries.length}`,
      provider: 'p',
      model: 'm4',
      usage: usage(1, 1),
      prior_usage: usage(5, 5),
    };
    return { batch: [compaction] };
  }
  if (pick < 0.84) return { batch: [f.user('first'), f.assistant('then', { provider: 'p', model: 'm5' }), f.user('and')] };
  if (pick < 0.92 && earlier !== undefined) return { switchTo: earlier };
  return { loadAt: next() < 0.1 ? null : (earlier ?? null) };
}

/** The load a fresh handle makes of `entries`: what every other way of loading must equal. */
function coldLoad(entries: readonly SessionEntry[]): LoadedSession & { head: string | null } {
  const { conversation, danglingUser, entries: origins, at, head } = rebuildConversation(entries);
  return { conversation, danglingUser, entries: origins, at, head };
}

function loadOf(log: SessionLog): LoadedSession & { head: string | null } {
  const resumeParent = log.resumeParent;
  return { ...log.load(), head: resumeParent };
}

describe('SessionLog: the active path a log keeps', () => {
  it('stays what a rebuild from the root gives, through prompts, tool rounds, approvals, system messages, compactions, switches and loads at earlier entries', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const f = new RecordFactory(`s${seed}`);
      const live = SessionLog.of([]);
      let built: BuiltLog | null = live.built();
      for (let step = 0; step < 60; step++) {
        const entries = live.entries ?? [];
        const action = nextStep(f, next, entries);
        if ('batch' in action) live.commit(live.chain(action.batch));
        else if ('switchTo' in action) {
          const leaf = live.leaf(action.switchTo, { id: f.nextId(), timestamp: '2026-01-01T00:00:00.000Z' });
          if (leaf !== null) live.commit([leaf]);
        } else live.load(undefined, { at: action.loadAt });
        const now = [...(live.entries ?? [])];
        const expected = coldLoad(now);
        // What a cache holds after the write (the log's own, extended or not), and the log a warm turn makes of it.
        built = live.built() ?? built;
        const warm = SessionLog.of([...now], 'session', built ?? undefined);
        expect(loadOf(warm), `seed ${seed}, step ${step}`).toEqual(expected);
        expect([warm.count, warm.leafId, warm.nextParent, warm.activeModel]).toEqual([
          now.length,
          now.at(-1)?.id ?? null,
          expected.head,
          rebuildConversation(now).activeModel,
        ]);
        // A built log of other entries (one behind) is not used.
        if (built !== null && built.count !== now.length) expect(loadOf(SessionLog.of([...now], 'session', built))).toEqual(expected);
      }
    }
  });

  it('keeps a cached path unchanged by what later logs made from it append', () => {
    const f = new RecordFactory('c');
    const log = SessionLog.of([]);
    log.commit(log.chain([f.user('q'), f.assistant('a')]));
    const built = log.built()!;
    const entries = [...log.entries!];
    const first = SessionLog.of([...entries], 'session', built);
    first.commit(first.chain([f.user('q2'), f.assistant('a2')]));
    const second = SessionLog.of([...entries], 'session', built);
    expect(second.load().conversation.messages.map((m) => (m.role === 'user' ? m.content : m.role))).toEqual(['q', 'assistant']);
    // The ids the first log added are past the second's count: not its own.
    expect(second.has(first.leafId!)).toBe(false);
    expect(() => second.chain([{ ...f.user('again'), id: first.leafId! }])).not.toThrow();
  });

  it('does not rebuild the path on a commit that follows it, and rebuilds after one it cannot follow', () => {
    const f = new RecordFactory('r');
    const log = SessionLog.of([]);
    log.commit(log.chain([f.user('q'), f.assistant('a')]));
    const before = log.built()!.path;
    log.commit(log.chain([f.user('q2')]));
    expect(log.built()!.path.closedAt).toBe(before.closedAt);
    expect(log.built()!.path.messages).toBe(before.messages);
    log.load(undefined, { at: 'r-000001' });
    log.commit(log.chain([f.assistant('other')]));
    expect(log.built()).toBeNull();
    expect(log.load().conversation.messages).toHaveLength(1);
    expect(log.built()).not.toBeNull();
  });
});
