import { SessionTree, type SessionEntry } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { findPrompt, PromptIdError, sessionPrompts } from './prompt-ids.js';

const stamp = '2026-01-01T00:00:00.000Z';
const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
const user = (id: string, parent: string | null, content: string): SessionEntry => ({
  type: 'message',
  id,
  parent_id: parent,
  timestamp: stamp,
  message: { role: 'user', content },
});
const answer = (id: string, parent: string): SessionEntry => ({
  type: 'message',
  id,
  parent_id: parent,
  timestamp: stamp,
  message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], provider: 'p', model: 'm', stop_reason: 'end_turn', usage },
});

// UUIDv7s of one minute: the same first 8 characters (the timestamp), random ends — two of
// which share their last 8 characters.
const P1 = '01a24d88-1f00-7abc-8def-0000aaaa1111';
const A1 = '01a24d88-1f01-7abc-8def-0000bbbb2222';
const P2 = '01a24d88-2200-7abc-8def-1234cccc3333';
const A2 = '01a24d88-2201-7abc-8def-0000dddd4444';
const P3 = '01a24d88-2300-7abc-8def-9999cccc3333';
const where = { session: 'the-session', listing: 'panto -c --list lists them' };

function tree(): SessionTree {
  // P3 continues after A1: a branch beside P2, and the current path.
  return SessionTree.of([user(P1, null, 'first'), answer(A1, P1), user(P2, A1, 'second'), answer(A2, P2), user(P3, A1, 'second, again')]);
}

describe('sessionPrompts', () => {
  it('gives every prompt a short id from the end of its id, longer where two end alike, and lists the current path newest first', () => {
    const prompts = sessionPrompts(tree());
    expect(prompts.short.get(P1)).toBe('aaaa1111');
    expect(prompts.short.get(P2)).toBe('4cccc3333');
    expect(prompts.short.get(P3)).toBe('9cccc3333');
    expect(prompts.onPath.map((entry) => entry.id)).toEqual([P3, P1]);
    expect(prompts.all.map((entry) => entry.id)).toEqual([P1, P2, P3]);
  });
});

describe('findPrompt', () => {
  it('takes a short id, the whole id, or a unique prefix — on any branch', () => {
    const prompts = sessionPrompts(tree());
    expect(findPrompt(prompts, 'aaaa1111', where).id).toBe(P1);
    expect(findPrompt(prompts, '4cccc3333', where).id).toBe(P2);
    expect(findPrompt(prompts, P3, where).id).toBe(P3);
    expect(findPrompt(prompts, '01a24d88-22', where).id).toBe(P2);
  });

  it('names the prompts a value matches by their short ids, and says where the ids are listed when it matches none', () => {
    const prompts = sessionPrompts(tree());
    expect(() => findPrompt(prompts, '01a24d88', where)).toThrow('"01a24d88" matches 3 prompts (aaaa1111, 4cccc3333, 9cccc3333): give one of their short ids');
    expect(() => findPrompt(prompts, 'cccc3333', where)).toThrow(PromptIdError);
    expect(() => findPrompt(prompts, 'ffffffff', where)).toThrow('no prompt "ffffffff" in session the-session: panto -c --list lists them');
    expect(() => findPrompt(prompts, A1.slice(-8), where)).toThrow('no prompt');
    expect(() => findPrompt(prompts, '', where)).toThrow('no prompt ""');
  });
});
