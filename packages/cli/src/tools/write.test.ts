import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { toolContext } from '../../../../test/support/tool-context.js';
import { createWriteTool } from './write.js';

describe('write tool', () => {
  let cwd: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: cwd, cleanup } = await tempDir());
  });
  afterEach(async () => cleanup());
  const write = (input: Record<string, string>) => createWriteTool({ cwd }).execute(input, toolContext());

  it('creates the file and its parent folders', async () => {
    expect(await write({ path: 'deep/er/new.txt', content: 'hi\nthere\n' })).toBe('Created deep/er/new.txt (9 B, 2 lines)');
    expect(await readFile(join(cwd, 'deep/er/new.txt'), 'utf8')).toBe('hi\nthere\n');
  });

  it('overwrites an existing file and says so', async () => {
    await writeFile(join(cwd, 'a.txt'), 'old');
    expect(await write({ path: 'a.txt', content: '' })).toBe('Overwrote a.txt (0 B, 0 lines)');
    expect(await readFile(join(cwd, 'a.txt'), 'utf8')).toBe('');
  });

  it('refuses to overwrite a directory, as an error result', async () => {
    await mkdir(join(cwd, 'd'));
    expect(await write({ path: 'd', content: 'x' })).toEqual({
      content: 'd is a directory; it was not overwritten',
      is_error: true,
    });
  });

  it('reports a parent that is a file as an error result', async () => {
    await writeFile(join(cwd, 'f'), '');
    expect(await write({ path: 'f/x.txt', content: 'x' })).toMatchObject({ is_error: true });
  });

  it('requires content to be a string', async () => {
    await expect(createWriteTool({ cwd }).execute({ path: 'a' }, toolContext())).rejects.toThrow('"content" must be a string');
  });
});
