import { describe, expect, it } from 'vitest';
import { promptText } from './prompt-text.js';

describe('an ACP prompt as panto text', () => {
  it('joins text and resource links, and puts embedded text resources after the prompt in context blocks', () => {
    expect(
      promptText([
        { type: 'text', text: 'fix ' },
        { type: 'resource_link', name: 'a.ts', uri: 'file:///w/a.ts' },
        { type: 'text', text: ' please' },
        { type: 'resource', resource: { uri: 'file:///w/b.ts', text: 'export const b = 1;' } },
      ]),
    ).toEqual({ type: 'text', text: 'fix [a.ts](file:///w/a.ts) please\n\n<context ref="file:///w/b.ts">\nexport const b = 1;\n</context>' });
  });

  it('escapes a context reference that would close its attribute', () => {
    const prompt = promptText([
      { type: 'text', text: 'x' },
      { type: 'resource', resource: { uri: 'file:///a"><x>', text: 't' } },
    ]);
    expect(prompt).toMatchObject({ text: expect.stringContaining('<context ref="file:///a&quot;>&lt;x>">') });
  });

  it('refuses images, audio, binary resources and an empty prompt, rather than send part of it', () => {
    expect(
      promptText([
        { type: 'text', text: 'look' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ]),
    ).toMatchObject({ type: 'refused' });
    expect(promptText([{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }])).toMatchObject({ type: 'refused' });
    expect(promptText([{ type: 'resource', resource: { uri: 'file:///x.bin', blob: 'AAAA' } }])).toEqual({
      type: 'refused',
      reason: 'panto takes text resources only; file:///x.bin is binary',
    });
    expect(promptText([{ type: 'text', text: '  ' }])).toEqual({ type: 'refused', reason: 'the prompt is empty' });
    expect(promptText([])).toEqual({ type: 'refused', reason: 'the prompt is empty' });
  });
});
