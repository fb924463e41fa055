import { describe, expect, it } from 'vitest';
import { pickerLabel } from './session-picker.js';

const now = new Date('2026-11-29T18:55:00Z');
const session = {
  id: '0198f0c2-7a11-7000-8000-00004a0c9e31',
  shortId: '4a0c9e31',
  file: '/sessions/x.jsonl',
  created: new Date('2026-11-29T18:00:00Z'),
  modified: new Date('2026-11-29T18:50:00Z'),
  messageCount: 4,
  firstPrompt: 'fix the tests',
  lastPrompt: 'now the docs',
};

describe('pickerLabel', () => {
  it('shows the short id, age, message count, first and last prompt', () => {
    expect(pickerLabel(session, now)).toBe('4a0c9e31    5m     4 msgs  fix the tests  …  now the docs');
  });

  it("writes the prompts' control characters as escapes, so a session's text cannot drive the terminal", () => {
    const label = pickerLabel({ ...session, firstPrompt: 'a \x1b[2Jb', lastPrompt: '\u202eexe.txt' }, now);
    expect(label).toBe('4a0c9e31    5m     4 msgs  a \\e[2Jb  …  \\u{202e}exe.txt');
  });
});
