import { describe, expect, it } from 'vitest';
import { completeBlocksEnd, loadMarkdownRenderer, MarkdownStream, wantsMarkdown } from './markdown.js';

describe('wantsMarkdown', () => {
  it('renders only for a terminal without NO_COLOR', () => {
    expect(wantsMarkdown({ isTTY: true }, {})).toBe(true);
    expect(wantsMarkdown({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(wantsMarkdown({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsMarkdown({ isTTY: false }, {})).toBe(false);
    expect(wantsMarkdown({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });
});

describe('completeBlocksEnd', () => {
  it('ends blocks at the last blank line, never inside a code fence', () => {
    expect(completeBlocksEnd('one para')).toBe(0);
    expect(completeBlocksEnd('one\n\ntwo')).toBe('one\n\n'.length);
    expect(completeBlocksEnd('```js\nconst a = 1;\n\nconst b = 2;\n')).toBe(0);
    expect(completeBlocksEnd('```js\na\n\nb\n```\nafter')).toBe('```js\na\n\nb\n```\n'.length);
  });
});

describe('MarkdownStream', () => {
  it('writes each complete block once, rendered, and the rest on flush', () => {
    const written: string[] = [];
    const stream = new MarkdownStream(
      (markdown) => `<${markdown.trim()}>\n\n`,
      (text) => written.push(text),
    );
    expect(stream.push('# Title\n')).toBe(false);
    expect(stream.push('\nSome ')).toBe(true);
    stream.push('text\n```\ncode\n\nmore');
    stream.push(' code\n```\n');
    stream.flush();
    expect(written).toEqual(['<# Title>\n', '\n<Some text\n```\ncode\n\nmore code\n```>\n']);
  });
});

describe('loadMarkdownRenderer', () => {
  it('renders markdown with marked-terminal: emphasis markers and fences are gone, the code stays', async () => {
    const render = await loadMarkdownRenderer(80);
    const out = render('Some **bold** text.\n\n```js\nconst x = 1;\n```\n').replace(/\x1b\[[0-9;]*m/g, '');
    expect(out).toContain('Some bold text.');
    expect(out).toContain('const x = 1;');
    expect(out).not.toContain('**');
    expect(out).not.toContain('```');
  });

  it('renders emphasis and code inside list items too (the markers are gone)', async () => {
    const render = await loadMarkdownRenderer(80);
    const out = render('- **bold** item with `code`\n- second *em*\n\n1. one **b**\n').replace(/\x1b\[[0-9;]*m/g, '');
    expect(out).toContain('bold item with code');
    expect(out).toContain('second em');
    expect(out).toContain('one b');
    expect(out).not.toContain('*b');
    expect(out).not.toContain('`');
  });
});
