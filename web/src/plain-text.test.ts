import { describe, expect, it } from 'vitest';
import { plainText } from './plain-text.js';

describe('plainText', () => {
  it('keeps the words of a markdown title and drops its syntax', () => {
    expect(plainText('# **Fix** the `parser` in _lexer.ts_')).toBe('Fix the parser in lexer.ts');
    expect(plainText('See [the docs](https://example.com) and ![a chart](c.png)')).toBe('See the docs and a chart');
    expect(plainText('> quoted\n\n- one\n- two\n\n```ts\nconst a = 1;\n```')).toBe('quoted one two const a = 1;');
  });

  it('leaves text that is not markdown syntax alone: escaped stars, unpaired markers, angle brackets', () => {
    expect(plainText('2 \\* 3 is 6')).toBe('2 * 3 is 6');
    expect(plainText('a **cut title')).toBe('a **cut title');
    expect(plainText('why is <div> not centred?')).toBe('why is <div> not centred?');
    expect(plainText('')).toBe('');
  });
});
