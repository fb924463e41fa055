/**
 * `node_modules/.bin/panto` works on a fresh clone right after `npm install`, before any
 * build (the committed launcher runs the TypeScript sources through tsx), and the install
 * prints no EBADENGINE warning on Node 20. Slow: a real `npm install` into a temp folder
 * (from npm's cache when it is warm).
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/temp-dir.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

let temp: string;
let cleanup: (() => Promise<void>) | undefined;
let clone: string;
let install: { stdout: string; stderr: string };

beforeAll(async () => {
  ({ path: temp, cleanup } = await tempDir('panto-clone-'));
  clone = join(temp, 'panto');
  await run('git', ['clone', '-q', ROOT, clone]);
  install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: clone,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    maxBuffer: 16 * 1024 * 1024,
  });
}, 600_000);
afterAll(async () => {
  await cleanup?.();
});

describe('a fresh clone after npm install', { timeout: 120_000 }, () => {
  it('has an executable node_modules/.bin/panto that runs a turn from the sources, with no build', async () => {
    expect(existsSync(join(clone, 'packages/cli/dist/entry/process-main.js')), 'nothing was built').toBe(false);
    const bin = join(clone, 'node_modules/.bin/panto');
    const version = await run(bin, ['--version']);
    expect(version.stdout).toBe('panto 0.1.0\n');

    const work = join(temp, 'elsewhere');
    await mkdir(work);
    const turn = await run(bin, ['-p', 'hello there', '--provider', 'offline', '--no-session'], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: temp, PANTO_HOME: join(temp, 'home'), NO_COLOR: '1' },
    });
    expect(turn.stdout).toContain('[offline provider');
    expect(turn.stdout).toContain('"hello there"');
  });

  it('printed no EBADENGINE warning while installing on this Node', () => {
    expect(`${install.stdout}\n${install.stderr}`).not.toContain('EBADENGINE');
  });
});

describe('the repository itself', () => {
  it('links node_modules/.bin/panto to the committed launcher', async () => {
    const version = await run(join(ROOT, 'node_modules/.bin/panto'), ['--version']);
    expect(version.stdout).toBe('panto 0.1.0\n');
  });
});
