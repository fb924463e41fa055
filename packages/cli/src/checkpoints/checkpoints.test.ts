import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { Checkpoints } from './checkpoints.js';
import { MAX_FILE_BYTES } from './git-store.js';
import { rewindFiles } from './rewind.js';

let root: { path: string; cleanup(): Promise<void> };
let cwd: string;
let warnings: string[];

beforeEach(async () => {
  root = await tempDir('panto-checkpoints-');
  cwd = join(root.path, 'project');
  await mkdir(cwd);
  warnings = [];
});
afterEach(async () => root.cleanup());

function start(options: { maxRecords?: number } = {}): Promise<Checkpoints> {
  return Checkpoints.start({
    dataDir: join(root.path, 'home'),
    cwd,
    exclude: [join(cwd, 'sessions')],
    sessionId: () => 'session-1',
    sessionFile: () => undefined,
    warn: (message) => warnings.push(message),
    ...options,
  });
}

const git = (args: string[], dir = cwd) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });

describe('Checkpoints', () => {
  it('creates the store once when the warm-up and the first checkpoint open it at the same moment', async () => {
    await writeFile(join(cwd, 'a.txt'), 'a\n');
    for (let round = 0; round < 5; round++) {
      const checkpoints = await Checkpoints.start({
        dataDir: join(root.path, `home-${round}`),
        cwd,
        exclude: [],
        sessionId: () => 'session-1',
        sessionFile: () => undefined,
        warn: (message) => warnings.push(message),
      });
      // The prompt typed at once: both open the store before either has made it.
      checkpoints.warmUp();
      const [first, second] = await Promise.all([checkpoints.open(true), checkpoints.open(true)]);
      expect(first).toBe(second);
      await checkpoints.beforePrompt('p1', 'go');
      await checkpoints.settle();
      expect(warnings).toEqual([]);
      expect(checkpoints.off).toBeUndefined();
      expect(await checkpoints.describe()).toMatch(/^1 prompt · /);
    }
  });

  it("never touches the folder's own .git: its index, HEAD and status are as they were", async () => {
    await writeFile(join(cwd, 'tracked.txt'), 'v1\n');
    git(['init', '-q']);
    git(['-c', 'user.email=a@b', '-c', 'user.name=a', 'add', 'tracked.txt']);
    git(['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'one']);
    const before = { index: await readFile(join(cwd, '.git/index')), status: git(['status', '--porcelain']), head: git(['rev-parse', 'HEAD']) };
    const checkpoints = await start();
    await checkpoints.beforePrompt('p1', 'change it');
    await writeFile(join(cwd, 'tracked.txt'), 'v2\n');
    await writeFile(join(cwd, 'new.txt'), 'new\n');
    await checkpoints.afterTurn('p1');
    const report = await rewindFiles(checkpoints, { promptId: 'p1', point: 'before' });
    expect(report).toMatchObject({ restored: ['tracked.txt'], removed: ['new.txt'], kept: [] });
    expect(await readFile(join(cwd, '.git/index'))).toEqual(before.index);
    expect(git(['status', '--porcelain'])).toBe(before.status);
    expect(git(['rev-parse', 'HEAD'])).toBe(before.head);
    expect(warnings).toEqual([]);
  });

  it('leaves out files over the size limit and panto-owned paths, and a rewind leaves them alone, naming the big one', async () => {
    await writeFile(join(cwd, 'small.txt'), 'small\n');
    const checkpoints = await start();
    await checkpoints.beforePrompt('p1', 'make big');
    await writeFile(join(cwd, 'big.bin'), Buffer.alloc(MAX_FILE_BYTES + 1, 1));
    await mkdir(join(cwd, 'sessions'));
    await writeFile(join(cwd, 'sessions', 's.jsonl'), '{}\n');
    await checkpoints.afterTurn('p1');
    await checkpoints.beforePrompt('p2', 'again');
    await checkpoints.afterTurn('p2');
    const open = await checkpoints.open(false);
    expect(open!.log.records.at(-1)!.skipped).toEqual(['big.bin']);
    const report = await rewindFiles(checkpoints, { promptId: 'p2', point: 'before' });
    expect(report).toEqual({ restored: [], removed: [], kept: [], skipped: [] });
    const back = await rewindFiles(checkpoints, { promptId: 'p1', point: 'before' });
    expect(back.removed).toEqual([]);
    expect((await stat(join(cwd, 'big.bin'))).size).toBe(MAX_FILE_BYTES + 1);
    expect(await readdir(join(cwd, 'sessions'))).toEqual(['s.jsonl']);
  });

  it('keeps at most maxRecords snapshots, dropping the oldest and pruning the objects only they held', async () => {
    const checkpoints = await start({ maxRecords: 8 });
    await writeFile(join(cwd, 'a.txt'), 'version 0\n');
    await checkpoints.beforePrompt('p0', 'first');
    const firstTree = (await checkpoints.open(false))!.log.records[0]!.tree;
    for (let i = 1; i <= 5; i++) {
      await writeFile(join(cwd, 'a.txt'), `version ${i}\n`);
      await checkpoints.afterTurn(`p${i - 1}`);
      await checkpoints.beforePrompt(`p${i}`, 'next');
    }
    const open = (await checkpoints.open(false))!;
    expect(open.log.records.length).toBeLessThanOrEqual(8);
    expect(open.log.records.some((record) => record.prompt_id === 'p0')).toBe(false);
    expect(() => execFileSync('git', ['--git-dir', open.store.gitDir, 'cat-file', '-e', firstTree], { stdio: 'pipe' })).toThrow();
    await expect(rewindFiles(checkpoints, { promptId: 'p0', point: 'before' })).rejects.toThrow('no checkpoint of the files before prompt p0');
    await rewindFiles(checkpoints, { promptId: 'p4', point: 'before' });
    expect(await readFile(join(cwd, 'a.txt'), 'utf8')).toBe('version 4\n');
  });
});
