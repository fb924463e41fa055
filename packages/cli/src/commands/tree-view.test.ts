import { SessionTree, type SessionEntry } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { treeTurns, turnLabel } from './tree-view.js';

const stamp = '2026-01-01T00:00:00.000Z';
const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
const system = (id: string): SessionEntry => ({
  type: 'message',
  id,
  parent_id: null,
  timestamp: stamp,
  message: { role: 'system', content: 'sys', mode: 'replace' },
});
const user = (id: string, parent: string, content: string): SessionEntry => ({
  type: 'message',
  id,
  parent_id: parent,
  timestamp: stamp,
  message: { role: 'user', content },
});
const answer = (id: string, parent: string, text: string): SessionEntry => ({
  type: 'message',
  id,
  parent_id: parent,
  timestamp: stamp,
  message: {
    role: 'assistant',
    content: [{ type: 'text', text }],
    provider: 'p',
    model: 'm',
    stop_reason: 'end_turn',
    usage,
  },
});

describe('treeTurns', () => {
  it('one line per prompt with its answer; a dangling prompt and its resend are two branches, the current path marked', () => {
    const tree = SessionTree.of([
      system('s'),
      user('u1', 's', 'fix the test'), // dangling: never answered
      user('u2', 's', 'fix the test please'),
      answer('a2', 'u2', 'Looking into it.'),
      user('u3', 'a2', 'and the docs'),
      answer('a3', 'u3', 'Done.'),
      user('u4', 'a2', 'and the bench'),
      answer('a4', 'u4', 'Measured.'),
    ]);
    const turns = treeTurns(tree, 'a3');
    expect(turns.map(turnLabel)).toEqual([
      '○ ├─ › fix the test → (no answer)',
      '● ├─ › fix the test please → Looking into it.  (2 branches)',
      '●    ├─ › and the docs → Done.  ◀ here',
      '○    ├─ › and the bench → Measured.',
    ]);
    expect(turns[1]!.end?.id).toBe('a2');
    expect(turns[0]!.end).toBeUndefined();
  });

  it('keeps a chain without branches at one level', () => {
    const tree = SessionTree.of([system('s'), user('u1', 's', 'one'), answer('a1', 'u1', 'A'), user('u2', 'a1', 'two'), answer('a2', 'u2', 'B')]);
    expect(treeTurns(tree, 'a2').map(turnLabel)).toEqual(['● › one → A', '● › two → B  ◀ here']);
    expect(treeTurns(tree, 'a1').map(turnLabel)).toEqual(['● › one → A  ◀ here', '○ › two → B']);
  });

  it('shows the answer, not a compaction that followed it', () => {
    const tree = SessionTree.of([
      system('s'),
      user('u1', 's', 'one'),
      answer('a1', 'u1', 'The answer.'),
      {
        type: 'compaction',
        id: 'c1',
        parent_id: 'a1',
        timestamp: stamp,
        summary: 'a summary',
        provider: 'p',
        model: 'm',
        usage,
        prior_usage: usage,
      },
    ]);
    const [turn] = treeTurns(tree, 'c1');
    expect(turnLabel(turn!)).toBe('● › one → The answer.  ◀ here');
    expect(turn!.end?.id).toBe('c1');
  });
});
