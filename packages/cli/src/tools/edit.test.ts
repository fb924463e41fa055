import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { toolContext } from '../../../../test/support/tool-context.js';
import { createEditTool, findAll } from './edit.js';

describe('edit tool', () => {
  let cwd: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: cwd, cleanup } = await tempDir());
  });
  afterEach(async () => cleanup());
  const edit = (input: Record<string, string>) => createEditTool({ cwd }).execute(input, toolContext());
  const file = (name: string) => readFile(join(cwd, name), 'utf8');

  it('replaces the one exact occurrence and says where', async () => {
    await writeFile(join(cwd, 'a.ts'), 'const a = 1;\nlet b = 2;\nconst c = 3;\n');
    expect(await edit({ path: 'a.ts', old_text: 'let b = 2;', new_text: 'const b = 2;\nconst bb = 22;' })).toBe(
      'Edited a.ts: replaced 1 line(s) at line 2 with 2 line(s)',
    );
    expect(await file('a.ts')).toBe('const a = 1;\nconst b = 2;\nconst bb = 22;\nconst c = 3;\n');
  });

  it('inserts replacement text literally, "$&" and all', async () => {
    await writeFile(join(cwd, 'a.txt'), 'price: X\n');
    await edit({ path: 'a.txt', old_text: 'X', new_text: '$& $1 $$' });
    expect(await file('a.txt')).toBe('price: $& $1 $$\n');
  });

  it('is an error result, leaving the file alone, when the text is absent', async () => {
    await writeFile(join(cwd, 'a.txt'), 'hello\n');
    const result = await edit({ path: 'a.txt', old_text: 'goodbye', new_text: 'x' });
    expect(result).toMatchObject({
      is_error: true,
      content: expect.stringContaining('old_text was not found in a.txt (0 matches)'),
    });
    expect(await file('a.txt')).toBe('hello\n');
  });

  it('is an error result saying how many matches and where, when the text is not unique', async () => {
    await writeFile(join(cwd, 'a.txt'), 'x = 1\ny = 2\nx = 1\nx = 1\n');
    const result = await edit({ path: 'a.txt', old_text: 'x = 1', new_text: 'x = 9' });
    expect(result).toEqual({
      is_error: true,
      content: 'old_text occurs 3 times in a.txt (at lines 1, 3, 4); it must be unique. Include more of the surrounding text. Nothing was changed.',
    });
    expect(await file('a.txt')).toBe('x = 1\ny = 2\nx = 1\nx = 1\n');
  });

  it('counts overlapping matches as matches', async () => {
    expect(findAll('aaa', 'aa')).toEqual([0, 1]);
    await writeFile(join(cwd, 'a.txt'), 'aaa');
    expect(await edit({ path: 'a.txt', old_text: 'aa', new_text: 'b' })).toMatchObject({
      is_error: true,
      content: expect.stringContaining('occurs 2 times'),
    });
  });

  it('matches "\\n" in old_text against a file with CRLF line endings, keeping them', async () => {
    await writeFile(join(cwd, 'w.txt'), 'one\r\ntwo\r\nthree\r\n');
    expect(await edit({ path: 'w.txt', old_text: 'one\ntwo', new_text: 'uno\ndos' })).toMatch(/^Edited w.txt/);
    expect(await file('w.txt')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('reports a missing file and a no-op edit as error results', async () => {
    expect(await edit({ path: 'none.txt', old_text: 'a', new_text: 'b' })).toEqual({
      content: 'File not found: none.txt',
      is_error: true,
    });
    await writeFile(join(cwd, 'a.txt'), 'a');
    expect(await edit({ path: 'a.txt', old_text: 'a', new_text: 'a' })).toMatchObject({ is_error: true });
  });

  it('rejects an empty old_text', async () => {
    await expect(edit({ path: 'a.txt', old_text: '', new_text: 'b' })).rejects.toThrow('"old_text" must not be empty');
  });
});
