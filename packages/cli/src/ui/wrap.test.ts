import { describe, expect, it } from 'vitest';
import { modelsText } from '../commands/models-text.js';
import { helpText } from '../commands/slash-commands.js';
import { HELP } from '../entry/args.js';
import { besidePrefix, fitText, joinToWidth, outputWidth, termRows } from './wrap.js';

/** The words of `text`, in order (the column separator `·` left out): what wrapping must keep whole. */
const words = (text: string) => text.split(/\s+/).filter((word) => word !== '' && word !== '·');
const widest = (text: string) => Math.max(...text.split('\n').map((line) => Array.from(line).length));

describe.each([80, 100])('at %i columns', (width) => {
  it('panto --help fits, every word whole and in its place', () => {
    const fitted = fitText(HELP, width);
    expect(widest(fitted)).toBeLessThanOrEqual(width);
    expect(words(fitted)).toEqual(words(HELP));
  });

  it('/help fits, each summary beside its command, every word whole', () => {
    const fitted = helpText(undefined, width);
    expect(widest(fitted)).toBeLessThanOrEqual(width);
    expect(words(fitted)).toEqual(words(helpText()));
    expect(fitted).toMatch(/^ {2}\/help {2,}show this help$/m);
  });

  it('/model fits, every model with its status and prices, every word whole', () => {
    const fitted = modelsText('anthropic/claude-sonnet-5-5', {}, '2026-12-01', width);
    expect(widest(fitted)).toBeLessThanOrEqual(width);
    expect(words(fitted)).toEqual(words(modelsText('anthropic/claude-sonnet-5-5', {}, '2026-12-01')));
    expect(fitted).toMatch(/^ {4}claude-sonnet-5-5 {2}default · \$2 in · \$10 out per million tokens$/m);
  });
});

describe('fitText', () => {
  it('leaves what fits as written, and everything as it is without a width (a pipe)', () => {
    expect(fitText(HELP, undefined)).toBe(HELP);
    const short = 'Options:\n  -c, --continue   Continue.\n\nA short paragraph\nin two lines.';
    expect(fitText(short, 40)).toBe(short);
  });

  it('wraps an option beside its term, continued under its first word; a long term gets its text below', () => {
    const text =
      '  -p, --print [prompt]  Run one turn, print the answer to stdout, exit.\n      --system <text|@file>\n                        The system prompt, or @path.';
    expect(fitText(text, 50).split('\n')).toEqual([
      '  -p, --print [prompt]  Run one turn, print the',
      '                        answer to stdout, exit.',
      '      --system <text|@file>',
      '                        The system prompt, or',
      '                        @path.',
    ]);
  });

  it('continues a usage line under its first argument, and a paragraph at its hanging indent', () => {
    expect(fitText('usage: panto [-p PROMPT] [--list [--all]] [--yolo] [--fork]', 32).split('\n')).toEqual([
      'usage: panto [-p PROMPT] [--list',
      '             [--all]] [--yolo]',
      '             [--fork]',
    ]);
    expect(fitText('Commands: /compact, /export,\n  /model, /tree, /rewind', 24).split('\n')).toEqual([
      'Commands: /compact,',
      '  /export, /model,',
      '  /tree, /rewind',
    ]);
  });
});

describe('termRows and besidePrefix', () => {
  it('puts a text under its term when fewer than 24 columns are left beside it', () => {
    expect(besidePrefix('  /a-very-long-command-name  ', 'does a thing', 40)).toEqual(['  /a-very-long-command-name', '      does a thing']);
  });

  it('without a width, one line a row, as wide as the widest term', () => {
    expect(
      termRows(
        [
          ['/a', 'one'],
          ['/abc', 'two'],
        ],
        undefined,
      ),
    ).toEqual(['  /a    one', '  /abc  two']);
  });
});

describe('joinToWidth', () => {
  it('moves a key hint to the next line whole instead of cutting it', () => {
    const help = '↑↓ move · Enter: continue after this answer · e: edit this prompt and resend it (a new branch) · Esc: back'.split(' · ');
    expect(joinToWidth(help, ' · ', 60)).toEqual([
      '↑↓ move · Enter: continue after this answer',
      'e: edit this prompt and resend it (a new branch) · Esc: back',
    ]);
  });
});

describe('outputWidth', () => {
  it("is a terminal's columns, and undefined for a pipe", () => {
    expect(outputWidth({ isTTY: true, columns: 100 })).toBe(100);
    expect(outputWidth({ isTTY: false, columns: 100 })).toBeUndefined();
    expect(outputWidth({})).toBeUndefined();
  });
});
