import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findContextFiles, MAX_CONTEXT_FILE_BYTES, withContextFiles } from './context-files.js';
import { tempDir } from '../../../../test/support/temp-dir.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
});
afterEach(async () => cleanup());

describe('findContextFiles', () => {
  it('reads $PANTO_HOME, then the repository root down to the working folder, and nothing above the root', async () => {
    const repo = join(root, 'outer', 'repo');
    const cwd = join(repo, 'packages', 'app');
    const home = join(root, 'home');
    await mkdir(cwd, { recursive: true });
    await mkdir(join(repo, '.git'));
    await mkdir(home);
    await writeFile(join(root, 'outer', 'AGENTS.md'), 'outside the repository');
    await writeFile(join(repo, 'AGENTS.md'), 'repo rules');
    await writeFile(join(repo, 'packages', 'AGENTS.md'), '   \n');
    await writeFile(join(cwd, 'AGENTS.md'), 'app rules');
    await writeFile(join(home, 'AGENTS.md'), 'my rules');

    const { files, problems } = await findContextFiles({ cwd, pantoHome: home, home: root, env: {} });
    expect(files.map((file) => [file.path, file.text])).toEqual([
      [join(home, 'AGENTS.md'), 'my rules'],
      [join(repo, 'AGENTS.md'), 'repo rules'],
      [join(cwd, 'AGENTS.md'), 'app rules'],
    ]);
    expect(problems).toEqual([]);
  });

  it('outside a repository reads only the working folder', async () => {
    const cwd = join(root, 'a', 'b');
    await mkdir(cwd, { recursive: true });
    await writeFile(join(root, 'a', 'AGENTS.md'), 'parent');
    await writeFile(join(cwd, 'AGENTS.md'), 'here');
    const { files } = await findContextFiles({ cwd, pantoHome: join(root, 'no-home'), home: root, env: {} });
    expect(files.map((file) => file.text)).toEqual(['here']);
  });

  it('cuts a file over the limit and says so in the prompt', async () => {
    await writeFile(join(root, 'AGENTS.md'), 'x'.repeat(MAX_CONTEXT_FILE_BYTES + 10));
    const { files } = await findContextFiles({ cwd: root, pantoHome: join(root, 'no-home'), home: root, env: {} });
    expect(files[0]!.truncated).toBe(true);
    expect(files[0]!.text).toHaveLength(MAX_CONTEXT_FILE_BYTES);
    expect(withContextFiles('base', files)).toContain('[cut at 64 KB');
  });
});

describe('withContextFiles', () => {
  it('leaves the prompt unchanged without files, and appends each file under its path otherwise', () => {
    expect(withContextFiles('base', [])).toBe('base');
    const prompt = withContextFiles('base', [
      { path: '/r/AGENTS.md', text: 'one', truncated: false },
      { path: '/r/a/AGENTS.md', text: 'two', truncated: false },
    ]);
    expect(prompt.startsWith('base\n')).toBe(true);
    expect(prompt.indexOf('## /r/AGENTS.md\n\none')).toBeLessThan(prompt.indexOf('## /r/a/AGENTS.md\n\ntwo'));
  });
});
