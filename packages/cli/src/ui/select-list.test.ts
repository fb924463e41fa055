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
});
