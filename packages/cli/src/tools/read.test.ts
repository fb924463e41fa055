import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { toolContext } from '../../../../test/support/tool-context.js';
import { createReadTool } from './read.js';

describe('read tool', () => {
  let cwd: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: cwd, cleanup } = await tempDir());
  });
  afterEach(async () => cleanup());

  const read = (input: Record<string, string | number>, limits?: { maxBytes: number; maxLines: number }) =>
    createReadTool(limits ? { cwd, limits } : { cwd }).execute(input, toolContext());

  it('returns the file with line numbers, relative to the working folder', async () => {
    await writeFile(join(cwd, 'a.txt'), 'alpha\nbeta\ngamma\n');
    expect(await read({ path: 'a.txt' })).toBe('1\talpha\n2\tbeta\n3\tgamma');
  });

  it('reads absolute paths, also outside the working folder', async () => {
    const { path: other, cleanup: cleanupOther } = await tempDir();
    try {
      await writeFile(join(other, 'b.txt'), 'outside\n');
      expect(await read({ path: join(other, 'b.txt') })).toBe('1\toutside');
    } finally {
      await cleanupOther();
    }
  });

  it('pages with offset (1-based first line) and limit (lines), saying how to read on', async () => {
    await writeFile(join(cwd, 'n.txt'), Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n'));
    const result = await read({ path: 'n.txt', offset: 9, limit: 2 });
    expect(result).toBe(' 9\tline 9\n10\tline 10\n[Showing lines 9–10 of 12. Use offset=11 to read on.]');
  });

  it('caps the output by lines and by bytes, with a note of what was cut', async () => {
    await writeFile(join(cwd, 'big.txt'), Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join('\n'));
    const byLines = await read({ path: 'big.txt' }, { maxBytes: 10_000, maxLines: 5 });
    expect(byLines).toMatch(/^1\trow 1\n2\trow 2\n3\trow 3\n4\trow 4\n5\trow 5\n\[Showing lines 1–5 of 50 \(output capped at 5 lines/);
    const byBytes = await read({ path: 'big.txt' }, { maxBytes: 40, maxLines: 1000 });
    expect(byBytes).toMatch(/\[Showing lines 1–\d of 50 \(output capped at 1000 lines \/ 40 B\)\. Use offset=\d+ to read on\.\]$/);
    expect(Buffer.byteLength(byBytes.toString().split('\n[')[0]!)).toBeLessThanOrEqual(40);
  });

  it('cuts very long lines with a note', async () => {
    await writeFile(join(cwd, 'min.js'), 'x'.repeat(5000));
    const result = String(await read({ path: 'min.js' }));
    expect(result).toContain('… [line cut: 5000 characters]');
    expect(result).toContain('[1 line(s) longer than 2000 characters were cut.]');
  });

  it('returns error results for a missing file, a directory, a binary file and an offset past the end', async () => {
    await mkdir(join(cwd, 'dir'));
    await writeFile(join(cwd, 'bin'), Buffer.from([0x50, 0x4b, 0x00, 0x01]));
    await writeFile(join(cwd, 'short.txt'), 'one\n');
    expect(await read({ path: 'nope.txt' })).toEqual({ content: 'File not found: nope.txt', is_error: true });
    expect(await read({ path: 'dir' })).toMatchObject({
      content: expect.stringContaining('is a directory'),
      is_error: true,
    });
    expect(await read({ path: 'bin' })).toMatchObject({
      content: expect.stringContaining('binary file'),
      is_error: true,
    });
    expect(await read({ path: 'short.txt', offset: 5 })).toEqual({
      content: 'offset 5 is past the end of short.txt, which has 1 lines',
      is_error: true,
    });
  });

  it('says so when the file is empty', async () => {
    await writeFile(join(cwd, 'empty.txt'), '');
    expect(await read({ path: 'empty.txt' })).toBe('(empty.txt is empty)');
  });

  it('rejects malformed input with a message naming the field', async () => {
    await expect(read({ path: 'a', offset: 0 })).rejects.toThrow('"offset" must be a positive integer');
    await expect(createReadTool({ cwd }).execute({}, toolContext())).rejects.toThrow('"path" must be a string');
  });
});
