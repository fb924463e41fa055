import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { selectFromList } from './select-list.js';

describe('selectFromList', () => {
  it('draws a frame no taller than the terminal, so a redraw can reach its top', async () => {
    const input = new PassThrough();
    const output = Object.assign(new PassThrough(), { columns: 80, rows: 10 });
    let written = '';
    output.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const items = Array.from({ length: 30 }, (_, i) => ({ label: `item ${i}`, value: i }));
    const chosen = selectFromList(input, output, { title: 'pick one', help: 'help line', items });
    await new Promise((resolve) => setTimeout(resolve, 10));
    input.write('\x1b[B');
    await new Promise((resolve) => setTimeout(resolve, 10));
    input.write('\r');
    expect(await chosen).toEqual({ value: 1, action: 'enter' });
    // Every frame: title + 6 rows + position + help = 9 lines, then the cursor's line: 10.
    const frames = written.split('pick one').slice(1);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    for (const frame of frames) expect(frame.match(/item \d+/g)).toHaveLength(6);
  });

  it('wraps the key help on a narrow terminal, each hint whole, and keeps the frame within its rows', async () => {
    const input = new PassThrough();
    const output = Object.assign(new PassThrough(), { columns: 45, rows: 12 });
    let written = '';
    output.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const help = '↑↓ move · Enter: continue after this answer · e: edit this prompt and resend it (a new branch) · Esc: back';
    const items = Array.from({ length: 30 }, (_, i) => ({ label: `item ${i}`, value: i }));
    const chosen = selectFromList(input, output, { title: 'tree', help, items, filter: false, actions: ['e'] });
    await new Promise((resolve) => setTimeout(resolve, 10));
    input.write('\x1b');
    expect(await chosen).toBeUndefined();
    const frame = written
      .split('tree')
      .at(1)!
      .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    expect(frame).not.toContain('…');
    expect(frame).toContain('↑↓ move · Enter: continue after this answer\n');
    expect(frame).toContain('e: edit this prompt and resend it (a new\nbranch) · Esc: back\n');
    // Title + rows + position + 3 help lines + the cursor's line: the terminal's 12 rows.
    expect(frame.match(/item \d+/g)).toHaveLength(6);
  });
});
