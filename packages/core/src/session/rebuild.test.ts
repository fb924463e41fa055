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

  it('repairs every cut-short call of a long path, one with many results among them, and keeps the rest as recorded', () => {
    const assistantCalling = (...ids: string[]) =>
      f.message({
        role: 'assistant',
        content: ids.map((id) => ({ type: 'tool_call' as const, id, name: 'read', input: {} })),
        provider: 'p',
        model: 'm',
        usage: usage(1, 1),
        stop_reason: 'tool_use',
      });
    const resultFor = (id: string) => f.message({ role: 'tool_result', tool_call_id: id, tool_name: 'read', content: id, is_error: false });
    const many = Array.from({ length: 20 }, (_, i) => `m${i}`);
    const records = [
      f.user('go'),
      assistantCalling('a'),
      f.user('first gap'),
      assistantCalling(...many),
      ...many.filter((id) => id !== 'm7').map(resultFor),
      assistantCalling('b', 'c'),
      resultFor('c'),
      f.assistant('done'),
    ];
    const rebuilt = rebuildConversation(chain(records));
    const synthesized = rebuilt.conversation.messages.flatMap((m, i) =>
      m.role === 'tool_result' && m.content === INTERRUPTED_TOOL_RESULT ? [[m.tool_call_id, i]] : [],
    );
    expect(synthesized).toEqual([
      ['a', 2],
      ['m7', 24],
      ['b', 27],
    ]);
    expect(rebuilt.conversation.length).toBe(records.length + 3);
    expect(rebuilt.entries.filter((entry) => entry === null)).toHaveLength(3);
    expect(rebuilt.entries.filter((entry) => entry !== null).map((entry) => entry!.id)).toEqual(records.map((record) => record.id));
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

  describe('tool calls that wait for approval', () => {
    const paused = () =>
      f.message({
        role: 'assistant',
        content: [
          { type: 'tool_call', id: 'ask', name: 'pay', input: {} },
          { type: 'tool_call', id: 'free', name: 'read', input: {} },
        ],
        provider: 'p',
        model: 'm',
        usage: usage(1, 1),
        stop_reason: 'awaiting_approval',
        approval_requests: [{ tool_call_id: 'ask', reason: 'it pays' }],
      });
    const result = (id: string, name: string, content = 'ok') =>
      f.message({ role: 'tool_result', tool_call_id: id, tool_name: name, content, is_error: false });
    const ids = (messages: readonly { role: string }[]) =>
      messages.map((m) => (m.role === 'tool_result' ? `result ${(m as unknown as { tool_call_id: string }).tool_call_id}` : m.role));

    it('leaves a waiting call without a result at the end of the path, where the other calls have theirs', () => {
      const rebuilt = rebuildConversation(chain([f.user('q'), paused(), result('free', 'read')]));
      expect(ids(rebuilt.conversation.messages)).toEqual(['user', 'assistant', 'result free']);
      expect(rebuilt.entries.every((entry) => entry !== null)).toBe(true);
    });

    it('reads an approved call with no result (a crash after the decision) as interrupted, and keeps the approval entry out of the messages', () => {
      const [q, a, r] = chain([f.user('q'), paused(), result('free', 'read')]);
      const approval: SessionEntry = {
        type: 'approval',
        id: 'r-appr',
        parent_id: r!.id,
        timestamp: 't',
        decisions: [{ tool_call_id: 'ask', decision: 'approve' }],
      };
      const rebuilt = rebuildConversation([q!, a!, r!, approval]);
      expect(ids(rebuilt.conversation.messages)).toEqual(['user', 'assistant', 'result free', 'result ask']);
      expect(rebuilt.conversation.messages.at(-1)).toMatchObject({ content: INTERRUPTED_TOOL_RESULT, is_error: true });
      expect(rebuilt.entries.at(-1)).toBeNull();
      expect(rebuilt.head).toBe('r-appr');
    });

    it('keeps a call waiting whose id a decision of an earlier pause used: a model that repeats ids is asked again, not read as decided', () => {
      const [q, a, r] = chain([f.user('q'), paused(), result('free', 'read')]);
      const approval: SessionEntry = {
        type: 'approval',
        id: 'r-old',
        parent_id: r!.id,
        timestamp: 't',
        decisions: [{ tool_call_id: 'ask', decision: 'approve' }],
      };
      const [ran, answer, q2, again, free2] = chain(
        [result('ask', 'pay'), f.assistant('paid'), f.user('pay again'), paused(), result('free', 'read')],
        approval.id,
      );
      const rebuilt = rebuildConversation([q!, a!, r!, approval, ran!, answer!, q2!, again!, free2!]);
      expect(ids(rebuilt.conversation.messages).slice(-2)).toEqual(['assistant', 'result free']);
      expect(rebuilt.entries.every((entry) => entry !== null)).toBe(true);
    });

    it('synthesizes an interrupted result for a waiting call once anything but its results follows it (the session moved on)', () => {
      const rebuilt = rebuildConversation(chain([f.user('q'), paused(), result('free', 'read'), f.user('next'), f.assistant('a')]));
      expect(ids(rebuilt.conversation.messages)).toEqual(['user', 'assistant', 'result free', 'result ask', 'user', 'assistant']);
    });
  });
});
