import { describe, expect, it } from 'vitest';
import { EntryNotFoundError, InvalidBatchError, SessionCorruptError } from '../errors.js';
import { SessionLog } from './log.js';
import type { SessionEntry } from './records.js';
import { RecordFactory } from '../testing/index.js';

function entries(f: RecordFactory, ...texts: string[]): SessionEntry[] {
  const out: SessionEntry[] = [];
  for (const text of texts) {
    const record = text.startsWith('a:') ? f.assistant(text.slice(2), { provider: 'p', model: text.slice(2) }) : f.user(text);
    out.push({ ...record, parent_id: out[out.length - 1]?.id ?? null });
  }
  return out;
}

describe('SessionLog', () => {
  it('chains a batch after the leaf of a loaded log without changing the log, and follows it once committed', () => {
    const f = new RecordFactory('l');
    const log = SessionLog.of(entries(f, 'q', 'a:m1'));
    const batch = log.chain([f.user('q2'), f.assistant('a2')]);
    expect(batch.map((e) => e.parent_id)).toEqual(['l-000002', 'l-000003']);
    expect(log.count).toBe(2);
    log.commit(batch);
    expect([log.count, log.leafId, log.nextParent]).toEqual([4, 'l-000004', 'l-000004']);
    expect(log.activeModel).toEqual({ provider: 'scripted', model: 'scripted-1' });
  });

  it('answers a trailing prompt with a sibling after a load, but follows it after this handle appended it', () => {
    const f = new RecordFactory('d');
    const loaded = SessionLog.of(entries(f, 'q', 'a:r', 'unanswered'));
    expect([loaded.leafId, loaded.nextParent, loaded.resumeParent]).toEqual(['d-000003', 'd-000002', 'd-000002']);
    expect(loaded.load().danglingUser).toBe('unanswered');

    const live = SessionLog.of(entries(new RecordFactory('e'), 'q', 'a:r'));
    const prompt = live.chain([f.user('just sent')]);
    live.commit(prompt);
    expect(live.nextParent).toBe(prompt[0]!.id);
    expect(live.resumeParent).toBe('e-000002');
    // …and a load of this handle goes back to the rule.
    expect(live.load().danglingUser).toBe('just sent');
    expect(live.nextParent).toBe('e-000002');
  });

  it('refuses duplicate ids, in the log or in the batch, with InvalidBatchError', () => {
    const f = new RecordFactory('x');
    const log = SessionLog.of(entries(f, 'q'));
    expect(() => log.chain([{ ...f.user('again'), id: 'x-000001' }])).toThrow(InvalidBatchError);
    const twice = f.user('twice');
    expect(() => log.chain([twice, twice])).toThrow(InvalidBatchError);
  });

  it('knows a session by its head alone: chains after it, checks no ids, and cannot load', () => {
    const log = SessionLog.fromHead({
      count: 5,
      leafId: 'h-000005',
      resumeParent: 'h-000004',
      activeModel: { provider: 'p', model: 'm' },
    });
    const f = new RecordFactory('n');
    expect(log.chain([f.user('q')])[0]!.parent_id).toBe('h-000004');
    expect(log.has('h-000005')).toBe(false);
    expect(log.entries).toBeNull();
    expect(() => log.load()).toThrow(TypeError);
  });

  it('reports entries that do not form a tree as SessionCorruptError naming the source', () => {
    const f = new RecordFactory('o');
    const orphan = { ...f.user('lost'), parent_id: 'nowhere' };
    expect(() => SessionLog.of([orphan], 'dynamodb:t/s')).toThrow(SessionCorruptError);
    expect(() => SessionLog.of([orphan], 'dynamodb:t/s')).toThrow('dynamodb:t/s: entry o-000001 refers to a missing parent nowhere');
  });

  it('makes a leaf entry to switch branches, commits it with the head of its target, and writes none to stay put', () => {
    const f = new RecordFactory('s');
    const base = entries(f, 'q', 'a:m1', 'unanswered');
    const log = SessionLog.of(base);
    expect(log.leaf('s-000003', { id: 'leaf-0', timestamp: 't' })).toBeNull();
    expect(() => log.leaf('nope', { id: 'leaf-1', timestamp: 't' })).toThrow(EntryNotFoundError);
    expect(() => log.leaf('s-000002', { id: 's-000001', timestamp: 't' })).toThrow(InvalidBatchError);
    const leaf = log.leaf('s-000002', { id: 'leaf-1', timestamp: 't' })!;
    expect(leaf).toEqual({ type: 'leaf', id: 'leaf-1', parent_id: 's-000002', timestamp: 't' });
    expect(log.headAfter([leaf])).toEqual({
      count: 4,
      leafId: 'leaf-1',
      resumeParent: 's-000002',
      activeModel: { provider: 'p', model: 'm1' },
    });
    expect(log.count).toBe(3);
    log.commit([leaf]);
    expect([log.count, log.leafId, log.nextParent, log.resumeParent]).toEqual([4, 'leaf-1', 's-000002', 's-000002']);
    expect(log.load().danglingUser).toBeNull();
    // Back to the prompt: it dangles again, and the next entry would be its sibling.
    const back = log.leaf('s-000003', { id: 'leaf-2', timestamp: 't' })!;
    log.commit([back]);
    expect([log.nextParent, log.load().danglingUser]).toEqual(['s-000002', 'unanswered']);
  });

  it('loads at an entry without moving the head or the active model, and chains the next batch there', () => {
    const f = new RecordFactory('t');
    const log = SessionLog.of(entries(f, 'q', 'a:m1', 'q2', 'a:m2'));
    const loaded = log.load(undefined, { at: 't-000002' });
    expect(loaded.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect([log.leafId, log.nextParent, log.activeModel?.model]).toEqual(['t-000004', 't-000002', 'm2']);
    expect(log.chain([f.user('branch')])[0]!.parent_id).toBe('t-000002');
    expect(() => log.load(undefined, { at: 'nope' })).toThrow(EntryNotFoundError);
  });
});
