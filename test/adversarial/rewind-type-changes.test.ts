/**
 * Attacks on the rewind guarantee ("whatever a turn changed can be undone") by a turn that
 * changes what a path is rather than what it holds: a folder replaced by a file
 * (`rm -rf d; echo x > d`), a file by a folder, a file or a folder by a link and back. Each
 * must checkpoint (no "appears as both a file and as a directory"), keep checkpointing after,
 * and rewind to exactly what was there, with the later prompts still rewindable.
 */
import { lstat, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Checkpoints } from '../../packages/cli/src/checkpoints/checkpoints.js';
import { rewindFiles } from '../../packages/cli/src/checkpoints/rewind.js';
import { fakeServerSandbox, runPanto } from '../cli-harness.js';
import { tempDir } from '../support/temp-dir.js';

const e2e = fakeServerSandbox();

let root: { path: string; cleanup(): Promise<void> };
let cwd: string;
let warnings: string[];
beforeEach(async () => {
  root = await tempDir('panto-rewind-attack-');
  cwd = join(root.path, 'project');
  await mkdir(cwd);
  warnings = [];
});
afterEach(async () => root.cleanup());

function start(): Promise<Checkpoints> {
  return Checkpoints.start({
    dataDir: join(root.path, 'home'),
    cwd,
    exclude: [],
    sessionId: () => 'session-1',
    sessionFile: () => undefined,
    warn: (message) => warnings.push(message),
  });
}

/** What a path is now: `file:<text>`, `link:<target>`, `folder:[names]`, or `none`. */
async function what(path: string): Promise<string> {
  const info = await lstat(join(cwd, path)).catch(() => undefined);
  if (info === undefined) return 'none';
  if (info.isSymbolicLink()) return `link:${await readlink(join(cwd, path))}`;
  if (info.isFile()) return `file:${await readFile(join(cwd, path), 'utf8')}`;
  return 'folder';
}

/** One turn that runs `change`, with its checkpoints before and after. */
async function turn(checkpoints: Checkpoints, id: string, change: () => Promise<void>): Promise<void> {
  await checkpoints.beforePrompt(id, id);
  await change();
  await checkpoints.afterTurn(id);
}

const CASES: { name: string; before: () => Promise<void>; change: () => Promise<void>; expect: Record<string, string> }[] = [
  {
    name: 'a folder replaced by a file',
    before: async () => {
      await mkdir(join(cwd, 'd'));
      await writeFile(join(cwd, 'd', 'inner.txt'), 'inner\n');
    },
    change: async () => {
      await rm(join(cwd, 'd'), { recursive: true });
      await writeFile(join(cwd, 'd'), 'x\n');
    },
    expect: { d: 'folder', 'd/inner.txt': 'file:inner\n' },
  },
  {
    name: 'a file replaced by a folder',
    before: async () => writeFile(join(cwd, 'd'), 'was a file\n'),
    change: async () => {
      await rm(join(cwd, 'd'));
      await mkdir(join(cwd, 'd', 'deeper'), { recursive: true });
      await writeFile(join(cwd, 'd', 'deeper', 'x.txt'), 'x\n');
    },
    expect: { d: 'file:was a file\n' },
  },
  {
    name: 'a file replaced by a link',
    before: async () => writeFile(join(cwd, 'f'), 'content\n'),
    change: async () => {
      await rm(join(cwd, 'f'));
      await symlink('/etc/hostname', join(cwd, 'f'));
    },
    expect: { f: 'file:content\n' },
  },
  {
    name: 'a folder replaced by a link to another folder',
    before: async () => {
      await mkdir(join(cwd, 'd'));
      await writeFile(join(cwd, 'd', 'a.txt'), 'a\n');
      await mkdir(join(cwd, 'other'));
      await writeFile(join(cwd, 'other', 'b.txt'), 'b\n');
    },
    change: async () => {
      await rm(join(cwd, 'd'), { recursive: true });
      await symlink('other', join(cwd, 'd'));
    },
    expect: { d: 'folder', 'd/a.txt': 'file:a\n', 'other/b.txt': 'file:b\n' },
  },
  {
    name: 'a link replaced by a folder',
    before: async () => symlink('elsewhere', join(cwd, 'l')),
    change: async () => {
      await rm(join(cwd, 'l'));
      await mkdir(join(cwd, 'l'));
      await writeFile(join(cwd, 'l', 'x.txt'), 'x\n');
    },
    expect: { l: 'link:elsewhere' },
  },
];

describe('rewind across a change of what a path is', { timeout: 30_000 }, () => {
  for (const attack of CASES) {
    it(`${attack.name}: checkpoints, keeps checkpointing, and rewinds to exactly what was there`, async () => {
      await attack.before();
      const checkpoints = await start();
      await turn(checkpoints, 'p1', attack.change);
      const changed = Object.fromEntries(await Promise.all(Object.keys(attack.expect).map(async (path) => [path, await what(path)])));
      await turn(checkpoints, 'p2', async () => writeFile(join(cwd, 'later.txt'), 'later\n'));
      expect(warnings).toEqual([]);
      expect(checkpoints.off).toBeUndefined();

      await rewindFiles(checkpoints, { promptId: 'p1', point: 'before' });
      for (const [path, expected] of Object.entries(attack.expect)) expect(await what(path), path).toBe(expected);
      expect(await what('later.txt')).toBe('none');

      // And forward again: to after the turn that changed the type.
      await rewindFiles(checkpoints, { promptId: 'p1', point: 'after' });
      for (const [path, expected] of Object.entries(changed)) expect(await what(path), path).toBe(expected);
      expect(warnings).toEqual([]);
    });
  }
});

describe('panto --rewind after a turn that replaced a folder by a file', { timeout: 90_000 }, () => {
  /** One `-p` turn whose model runs `command` with bash (in the sandbox); the prompt's id and the session's. */
  async function bashTurn(extra: string[], command: string): Promise<{ session_id: string; prompt_id: string }> {
    e2e.server.enqueue({ toolCalls: [{ name: 'bash', input: { command } }] }, { text: 'done' });
    const { args, env } = e2e.openai();
    const run = await runPanto([...args, ...extra, '-p', command, '--output-format', 'json'], { cwd: e2e.box.cwd, env });
    expect(run.stderr).not.toContain('checkpoint failed');
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as { session_id: string; prompt_id: string };
  }

  it('keeps checkpointing, and --rewind to before it brings the folder back (exit 0)', async () => {
    const cwd = e2e.box.cwd;
    await mkdir(join(cwd, 'd'));
    await writeFile(join(cwd, 'd', 'inner.txt'), 'inner\n');
    const first = await bashTurn([], 'rm -rf d; echo x > d');
    await bashTurn(['-c'], 'echo later > later.txt');
    const { args, env } = e2e.openai();
    const rewound = await runPanto([...args, '-r', first.session_id, '--rewind', first.prompt_id], { cwd, env });
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(await readFile(join(cwd, 'd', 'inner.txt'), 'utf8')).toBe('inner\n');
    expect((await lstat(join(cwd, 'later.txt')).catch(() => undefined)) === undefined).toBe(true);
  });
});
