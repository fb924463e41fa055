import { describe, expect, it } from 'vitest';
import { EntryNotFoundError, SessionCorruptError } from '../errors.js';
import type { SessionEntry } from './records.js';
import { acceptsPrompt, entryPreview, SessionTree } from './tree.js';
import { RecordFactory, usage } from '../testing/index.js';

const f = new RecordFactory('t');
const entry = (record: ReturnType<RecordFactory['user']>, parent: string | null): SessionEntry => ({
  ...record,
  parent_id: parent,
});
const toolCall = f.message({
  role: 'assistant',
  content: [
    { type: 'tool_call', id: 'c', name: 'read', input: {} },
    { type: 'tool_call', id: 'd', name: 'bash', input: {} },
  ],
  provider: 'p',
  model: 'm',
  usage: usage(1, 1),
  stop_reason: 'tool_use',
});

describe('entryPreview', () => {
  it('says what each kind of entry holds on one line, cut with an ellipsis', () => {
    expect(entryPreview(entry(f.user('  two\n\tlines  '), null))).toBe('two lines');
    expect(entryPreview(entry(f.user('é'.repeat(100)), null))).toBe(`${'é'.repeat(79)}…`);
    expect(entryPreview(entry(toolCall, null))).toBe('[calls read, bash]');
    expect(entryPreview(entry(f.message({ role: 'tool_result', tool_call_id: 'c', tool_name: 'read', content: 'body', is_error: false }), null))).toBe(
      '[read] body',
    );
    expect(entryPreview({ type: 'leaf', id: 'l', parent_id: 'x', timestamp: 't' })).toBe('[switch] → x');
  });
});

describe('acceptsPrompt', () => {
  it('accepts the root, a system message, a compaction and an answer that calls no tools — nothing mid-turn', () => {
    expect(acceptsPrompt(null)).toBe(true);
    expect(acceptsPrompt(entry(f.message({ role: 'system', content: 's', mode: 'replace' }), null))).toBe(true);
    expect(acceptsPrompt(entry(f.assistant('done'), null))).toBe(true);
    expect(acceptsPrompt(entry(toolCall, null))).toBe(false);
    expect(acceptsPrompt(entry(f.user('q'), null))).toBe(false);
    expect(acceptsPrompt(entry(f.message({ role: 'tool_result', tool_call_id: 'c', tool_name: 'read', content: '', is_error: false }), null))).toBe(false);
    expect(acceptsPrompt({ type: 'leaf', id: 'l', parent_id: 'x', timestamp: 't' })).toBe(false);
  });
});

describe('SessionTree', () => {
  it('resolves a leaf entry to the entry it switched to, and refuses ids it does not hold', () => {
    const q = entry(f.user('q'), null);
    const a = entry(f.assistant('a'), q.id);
    const tree = SessionTree.of([q, a, { type: 'leaf', id: 'switch', parent_id: q.id, timestamp: 't' }]);
    expect(tree.activeLeaf).toBe(q.id);
    expect(tree.resolve('switch').id).toBe(q.id);
    expect(tree.leaves.map((e) => e.id)).toEqual([a.id]);
    expect(() => tree.pathTo('nope')).toThrow(EntryNotFoundError);
    expect(() => SessionTree.of([entry(f.user('lost'), 'ghost')], 'src')).toThrow(SessionCorruptError);
  });
});
