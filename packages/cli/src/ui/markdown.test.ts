import { describe, expect, it } from 'vitest';
import { completeBlocksEnd, loadMarkdownRenderer, MarkdownStream, rowsAbove, wantsMarkdown } from './markdown.js';

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

describe('MarkdownStream on a terminal', () => {
  const terminal = (written: string[], columns = 20, rows = 10) => ({ write: (text: string) => written.push(text), columns: () => columns, rows: () => rows });

  it('shows the open block raw as it arrives, then erases it (up the rows it took) and writes it rendered', () => {
    const written: string[] = [];
    const stream = new MarkdownStream((markdown) => `<${markdown.trim()}>\n`, terminal(written));
    expect(stream.push('Some ')).toBe(true);
    expect(stream.push('**bold**')).toBe(true);
    expect(written).toEqual(['Some ', '**bold**']);
    stream.push(' text\n\nNext');
    // What was shown is on one row: back to its start, erased, rendered; then the next block raw.
    expect(written.slice(2)).toEqual(['\r\x1b[J', '<Some **bold** text>\n', '\n', 'Next']);
    stream.push(' line\nand more');
    stream.flush();
    // "Next line" and a line break, then "and more": one row up.
    expect(written.slice(6)).toEqual([' line\nand more', '\r\x1b[1A\x1b[J', '<Next line\nand more>\n']);
  });

  it('leaves a raw block that no longer fits on the screen, and renders below it', () => {
    const written: string[] = [];
    const stream = new MarkdownStream((markdown) => `<${markdown.trim()}>\n`, terminal(written, 20, 3));
    stream.push('```\na\nb\nc\nd');
    stream.push('\n```\n');
    expect(written).toEqual(['```\na\nb\nc\nd', '\n```\n']);
  });
});

describe('rowsAbove', () => {
  it('counts the rows between the start of the text and the cursor, wrapped lines included', () => {
    expect(rowsAbove('abc', 10)).toBe(0);
    expect(rowsAbove('abc\n', 10)).toBe(1);
    expect(rowsAbove('0123456789', 10)).toBe(0);
    expect(rowsAbove('0123456789a', 10)).toBe(1);
    expect(rowsAbove('0123456789\n\nx', 10)).toBe(2);
    expect(rowsAbove('01234567890123456789012\nx', 10)).toBe(3);
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
