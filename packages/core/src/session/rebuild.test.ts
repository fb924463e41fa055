import { describe, expect, it } from 'vitest';
import { EntryNotFoundError } from '../errors.js';
import { INTERRUPTED_TOOL_RESULT, rebuildConversation } from './rebuild.js';
import type { SessionEntry } from './records.js';
import { RecordFactory, usage } from '../testing/index.js';

const f = new RecordFactory('r');
const chain = (records: ReturnType<RecordFactory['user']>[], parent: string | null = null): SessionEntry[] =>
  records.map((record, i) => ({ ...record, parent_id: i === 0 ? parent : records[i - 1]!.id }));

describe('rebuildConversation', () => {
  it('follows parent_id from the newest entry, not file order, so older branches are left out', () => {
    const [q1, a1, q2] = chain([f.user('q1'), f.assistant('a1'), f.user('q2 (abandoned)')]);
    const [q2b, a2b] = chain([f.user('q2 edited'), f.assistant('a2')], a1!.id);
    const rebuilt = rebuildConversation([q1!, a1!, q2!, q2b!, a2b!]);
    expect(rebuilt.conversation.messages.map((m) => (m.role === 'user' ? m.content : m.role))).toEqual(['q1', 'assistant', 'q2 edited', 'assistant']);
    expect(rebuilt.danglingUser).toBeNull();
    expect(rebuilt.head).toBe(a2b!.id);
    expect(rebuilt.leafId).toBe(a2b!.id);
  });

  it("sets the head to the dangling prompt's parent so the next entry is its sibling", () => {
    const entries = chain([f.user('q1'), f.assistant('a1'), f.user('unanswered')]);
    const rebuilt = rebuildConversation(entries);
    expect(rebuilt.danglingUser).toBe('unanswered');
    expect(rebuilt.head).toBe(entries[1]!.id);
    expect(rebuilt.leafId).toBe(entries[2]!.id);
    expect(rebuilt.activeModel).toEqual({ provider: 'scripted', model: 'scripted-1' });
  });

  it('gives a lone dangling first prompt a null head', () => {
    const rebuilt = rebuildConversation(chain([f.user('only')]));
    expect(rebuilt).toMatchObject({ danglingUser: 'only', head: null });
    expect(rebuilt.conversation.length).toBe(0);
  });

  it('inserts an interrupted error result for each tool call with no result, after the recorded ones', () => {
    const call = f.message({
      role: 'assistant',
      content: [
        { type: 'tool_call', id: 'a', name: 'read', input: {} },
        { type: 'tool_call', id: 'b', name: 'bash', input: {} },
      ],
      provider: 'p',
      model: 'm',
      usage: usage(1, 1),
      stop_reason: 'tool_use',
    });
    const result = f.message({
      role: 'tool_result',
      tool_call_id: 'a',
      tool_name: 'read',
      content: 'ok',
      is_error: false,
    });
    const rebuilt = rebuildConversation(chain([f.user('go'), call, result, f.user('and now?'), f.assistant('fine')]));
    expect(rebuilt.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_result', 'tool_result', 'user', 'assistant']);
    expect(rebuilt.conversation.messages[3]).toEqual({
      role: 'tool_result',
      tool_call_id: 'b',
      tool_name: 'bash',
      content: INTERRUPTED_TOOL_RESULT,
      is_error: true,
    });
  });

  it('reports a missing parent and a cycle instead of looping or guessing', () => {
    const [a] = chain([f.user('x')], 'ghost');
    expect(() => rebuildConversation([a!])).toThrow(/missing parent ghost/);
    const one = { ...f.user('1'), parent_id: 'two' } as SessionEntry;
    const two = { ...f.user('2'), parent_id: one.id } as SessionEntry;
    (one as { parent_id: string }).parent_id = two.id;
    expect(() => rebuildConversation([one, two])).toThrow(/cycle/);
  });

  it('lets a newest leaf entry stand for the entry it switched to: its path, its dangling prompt, its head', () => {
    const [q1, a1, q2] = chain([f.user('q1'), f.assistant('a1'), f.user('q2 (unanswered)')]);
    const [q2b, a2b] = chain([f.user('q2b'), f.assistant('a2b')], a1!.id);
    const toA1 = { type: 'leaf' as const, id: 'r-leaf-1', parent_id: a1!.id, timestamp: 't' };
    const atA1 = rebuildConversation([q1!, a1!, q2!, q2b!, a2b!, toA1]);
    expect(atA1.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect([atA1.head, atA1.leafId, atA1.at?.id, atA1.danglingUser]).toEqual([a1!.id, 'r-leaf-1', a1!.id, null]);

    const toQ2 = { type: 'leaf' as const, id: 'r-leaf-2', parent_id: q2!.id, timestamp: 't' };
    const atQ2 = rebuildConversation([q1!, a1!, q2!, q2b!, a2b!, toA1, toQ2]);
    expect(atQ2.danglingUser).toBe('q2 (unanswered)');
    expect([atQ2.head, atQ2.at?.id]).toEqual([a1!.id, q2!.id]);
  });

  it("rebuilds at any entry when asked, with each message's entry beside it", () => {
    const call = f.message({
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'c', name: 'read', input: {} }],
      provider: 'p',
      model: 'm',
      usage: usage(1, 1),
      stop_reason: 'tool_use',
    });
    const entries = chain([f.user('go'), call, f.user('later'), f.assistant('done')]);
    const atCall = rebuildConversation(entries, 's', { at: entries[1]!.id });
    expect(atCall.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_result']);
    expect(atCall.entries.map((entry) => entry?.id ?? null)).toEqual([entries[0]!.id, entries[1]!.id, null]);
    expect(rebuildConversation(entries, 's', { at: null })).toMatchObject({ head: null, at: null, entries: [] });
    expect(() => rebuildConversation(entries, 's', { at: 'nope' })).toThrow(EntryNotFoundError);
  });
});
