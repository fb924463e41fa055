import { describe, expect, it } from 'vitest';
import type { Entry, StoredMessage } from './api/wire.js';
import {
  branchLeaves,
  editParent,
  failedBefore,
  indexEntries,
  lastUsed,
  latestOf,
  promptBefore,
  promptVersions,
  replacedBy,
  unansweredPrompts,
} from './branches.js';

const usage = { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 };
let clock = 0;
const at = (): string => new Date(Date.UTC(2026, 11, 1, 12, 0, clock++)).toISOString();
const system = (id: string): Entry => ({
  type: 'message',
  id,
  parent_id: null,
  timestamp: at(),
  message: { role: 'system', content: 'Be brief.', mode: 'replace' },
});
const prompt = (id: string, parent: string | null, text = id): Entry => ({
  type: 'message',
  id,
  parent_id: parent,
  timestamp: at(),
  message: { role: 'user', content: text },
});
const answer = (id: string, parent: string): Entry => ({
  type: 'message',
  id,
  parent_id: parent,
  timestamp: at(),
  message: { role: 'assistant', content: [{ type: 'text', text: id }], provider: 'anthropic', model: 'm', usage, stop_reason: 'end_turn' },
});
const leaf = (id: string, target: string): Entry => ({ type: 'leaf', id, parent_id: target, timestamp: at() });

/** s → u1 → a1 → u2 → a2, then u2 edited (u2b → a2b), then a switch back to a2 (leaf l1). */
const log: Entry[] = [
  system('s'),
  prompt('u1', 's'),
  answer('a1', 'u1'),
  prompt('u2', 'a1'),
  answer('a2', 'u2'),
  prompt('u2b', 'a1'),
  answer('a2b', 'u2b'),
  leaf('l1', 'a2'),
];
const index = indexEntries(log);

const none: ReadonlySet<string> = new Set();

describe('promptVersions', () => {
  it('lists the prompts that follow the same entry, oldest first, and which one this is', () => {
    expect(promptVersions(index, 'u2', none)).toEqual({ ids: ['u2', 'u2b'], position: 0 });
    expect(promptVersions(index, 'u2b', none)).toEqual({ ids: ['u2', 'u2b'], position: 1 });
  });

  it('is null for a prompt with no other version, and for an id not in the log', () => {
    expect(promptVersions(index, 'u1', none)).toBeNull();
    expect(promptVersions(index, 'nope', none)).toBeNull();
  });

  it('counts first prompts of a session without a system prompt as versions of each other', () => {
    const roots = indexEntries([prompt('r1', null), answer('b1', 'r1'), prompt('r2', null)]);
    expect(promptVersions(roots, 'r2', none)).toEqual({ ids: ['r1', 'r2'], position: 1 });
  });

  it('leaves out a prompt that never got its answer — but for the prompt itself (a failed edit, shown with Resend)', () => {
    // u3 failed (a 400), then u3b went on after it: no versions. u3c, an edit of u3b, failed and is where the session is now.
    const failed = indexEntries([...log, prompt('u3', 'a2'), prompt('u3b', 'a2'), answer('a3b', 'u3b'), prompt('u3c', 'a2')]);
    expect(promptVersions(failed, 'u3b', new Set(['u3', 'u3c']))).toBeNull();
    expect(promptVersions(failed, 'u3c', new Set(['u3', 'u3c']))).toEqual({ ids: ['u3b', 'u3c'], position: 1 });
  });
});

describe('failedBefore', () => {
  const unanswered = new Set(['f1', 'f2', 'f3', 'f4']);
  // After a1: f1 failed, f2 (the same words as f1) failed, then n1 went on; then f3 failed, f4 (retrying n2's words) failed, n2 went on.
  const failedLog = indexEntries([
    ...log.slice(0, 3),
    prompt('f1', 'a1', 'Are you there?'),
    prompt('f2', 'a1', 'Are you there?'),
    prompt('n1', 'a1', 'Hello?'),
    answer('b1', 'n1'),
    prompt('f3', 'a1', 'Still there?'),
    prompt('f4', 'a1', 'Again'),
    prompt('n2', 'a1', 'Again'),
    answer('b2', 'n2'),
  ]);

  it('lists the prompts that failed just before a prompt went on from the same point, once each', () => {
    expect(failedBefore(failedLog, 'n1', unanswered)).toEqual([{ id: 'f2', text: 'Are you there?' }]);
  });

  it('leaves out those an answered version came between, and a retry with the same words', () => {
    expect(failedBefore(failedLog, 'n2', unanswered)).toEqual([{ id: 'f3', text: 'Still there?' }]);
    expect(failedBefore(failedLog, 'u1', unanswered)).toEqual([]);
    expect(failedBefore(failedLog, 'b1', unanswered)).toEqual([]);
  });
});

describe('branchLeaves and unansweredPrompts', () => {
  const leafOf = (id: string, unanswered: boolean) => ({ id, timestamp: at(), preview: id, unanswered });
  const tree = { active_leaf: 'a3', leaves: [leafOf('f1', true), leafOf('a2', false), leafOf('a3', false)], branch_points: ['a1'], usage };

  it('counts the leaves but a failed prompt as branches — unless the session is at that prompt now', () => {
    expect(branchLeaves(tree).map((leaf) => leaf.id)).toEqual(['a2', 'a3']);
    expect(branchLeaves({ ...tree, active_leaf: 'f1' }).map((leaf) => leaf.id)).toEqual(['f1', 'a2', 'a3']);
    expect([...unansweredPrompts(tree)]).toEqual(['f1']);
    expect(unansweredPrompts(null).size).toBe(0);
  });
});

describe('latestOf', () => {
  it("lands on a branch's newest entry, a switch back to it counting as its use", () => {
    expect(latestOf(index, 'u2b')).toBe('a2b');
    // l1 (the switch back to a2) is newer than anything on u2b's branch and stands for a2.
    expect(latestOf(index, 'u2')).toBe('a2');
  });

  it('lands on the newest of several leaves below the version', () => {
    const deeper = indexEntries([...log, prompt('u3', 'a2'), answer('a3', 'u3'), prompt('u3b', 'a2')]);
    expect(latestOf(deeper, 'u2')).toBe('u3b');
  });
});

describe('lastUsed', () => {
  it('is when the leaf was written, or the last switch to it', () => {
    const written = index.byId.get('a2')!.entry.timestamp;
    expect(lastUsed(index, 'a2', written)).toBe(index.byId.get('l1')!.entry.timestamp);
    expect(lastUsed(index, 'a2b', index.byId.get('a2b')!.entry.timestamp)).toBe(index.byId.get('a2b')!.entry.timestamp);
  });
});

describe('promptBefore', () => {
  it('is the prompt a branch ending at an entry answered, or the entry itself when it is a prompt', () => {
    expect(promptBefore(index, 'a2b')).toBe('u2b');
    expect(promptBefore(index, 'u1')).toBe('u1');
    expect(promptBefore(index, 's')).toBeUndefined();
  });
});

describe('replacedBy', () => {
  it('gives the path before a compaction, oldest first, as stored messages with their ids', () => {
    const compaction: Entry = {
      type: 'compaction',
      id: 'c1',
      parent_id: 'a2',
      timestamp: at(),
      summary: 'We talked.',
      provider: 'anthropic',
      model: 'm',
      usage,
      prior_usage: usage,
    };
    const compacted = indexEntries([...log, compaction, prompt('u4', 'c1')]);
    const earlier = replacedBy(compacted, 'c1');
    expect(earlier.map((message) => message.id)).toEqual(['s', 'u1', 'a1', 'u2', 'a2']);
    expect(earlier[1]).toMatchObject({ role: 'user', content: 'u1', timestamp: expect.any(String) });
    expect(replacedBy(compacted, 'missing')).toEqual([]);
  });
});

describe('editParent', () => {
  const stored = (entry: Entry): StoredMessage =>
    entry.type === 'message' ? { ...entry.message, id: entry.id, accepts_prompt: entry.message.role !== 'user' } : ({} as StoredMessage);
  it('is the message before the prompt, or null for a first prompt', () => {
    expect(editParent(stored(log[2]!))).toBe('a1');
    expect(editParent(stored(log[0]!))).toBe('s');
    expect(editParent(undefined)).toBeNull();
  });

  it('is undefined where the server says no prompt may follow, or a message has no id', () => {
    expect(
      editParent({ role: 'tool_result', tool_call_id: 't', tool_name: 'x', content: '', is_error: false, id: 't1', accepts_prompt: false }),
    ).toBeUndefined();
    expect(editParent({ role: 'assistant', content: [], provider: 'p', model: 'm', usage, stop_reason: 'end_turn', accepts_prompt: true })).toBeUndefined();
  });
});
