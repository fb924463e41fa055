/** Temporary folders for tests: one helper, so that every test gets a real path and a cleanup the same way. */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary folder (real path), removed by the returned cleanup. */
export async function tempDir(prefix = 'panto-cli-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}
