/** Temporary folders for tests: one helper, so that every test gets a real path and a cleanup the same way. */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, sep } from 'node:path';

/** A fresh temporary folder (real path), removed by the returned cleanup. */
export async function tempDir(prefix = 'panto-cli-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/**
 * A fresh folder outside every temp folder (`/tmp`, `$TMPDIR`), which sandboxed commands may
 * write to: a test that a write is refused must not pass only because the folder was
 * writable anyway, nor fail because it was. `/var/tmp` where it is outside them, else under
 * `~/.cache`.
 */
export async function tempDirOutsideTemp(prefix = 'panto-sandbox-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const temps = ['/tmp', tmpdir()].filter((dir) => existsSync(dir));
  const realTemps = await Promise.all(temps.map((dir) => realpath(dir)));
  const inside = (path: string) => realTemps.some((temp) => path === temp || path.startsWith(`${temp}${sep}`));
  let parent = existsSync('/var/tmp') ? await realpath('/var/tmp') : undefined;
  if (parent === undefined || inside(parent)) {
    parent = join(homedir(), '.cache', 'panto-tests');
    await mkdir(parent, { recursive: true });
    parent = await realpath(parent);
  }
  if (inside(parent)) throw new Error(`no folder outside the temp folders (${realTemps.join(', ')}) to test the sandbox in`);
  const path = await realpath(await mkdtemp(join(parent, prefix)));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}
