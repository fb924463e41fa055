import { link, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { filesLinkedOutside } from './hard-links.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
  await mkdir(join(root, 'project', 'node_modules', 'pkg'), { recursive: true });
  await mkdir(join(root, 'cache'));
});
afterEach(async () => cleanup());

describe('filesLinkedOutside', () => {
  it('counts the files linked to a file outside the folder, not those whose every link is inside, nor pnpm’s store', async () => {
    const project = join(root, 'project');
    await writeFile(join(root, 'cache', 'index.js'), 'shared\n');
    await link(join(root, 'cache', 'index.js'), join(project, 'node_modules', 'pkg', 'index.js'));
    await writeFile(join(project, 'a.txt'), 'a\n');
    await link(join(project, 'a.txt'), join(project, 'a-copy.txt'));
    await mkdir(join(project, 'node_modules', '.pnpm'));
    await writeFile(join(root, 'cache', 'p.js'), 'p\n');
    await link(join(root, 'cache', 'p.js'), join(project, 'node_modules', '.pnpm', 'p.js'));
    expect(filesLinkedOutside(project)).toEqual({ count: 1, examples: ['node_modules/pkg/index.js'], complete: true });
  });

  it('says when it stopped at its limit', async () => {
    for (let i = 0; i < 5; i++) await writeFile(join(root, 'project', `f${i}`), '');
    expect(filesLinkedOutside(join(root, 'project'), 2).complete).toBe(false);
  });
});
