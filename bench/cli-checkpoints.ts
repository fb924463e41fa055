/**
 * What checkpoints cost a turn (issue 28): a turn takes two (before its prompt runs, after
 * it), on a 10,000-file folder — with nothing changed, and with 10 files changed during the
 * turn — against the least any change detection costs, measured in the same run: a walk of
 * the folder that `stat`s every file. The first checkpoint of a session (every file hashed
 * into the store) is shown too.
 * Run alone: npx tsx --conditions=@panto/source bench/cli-checkpoints.ts
 */
import { lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Checkpoints } from '@panto/cli/internal';
import { median, printTable, time } from './util.js';

const FOLDERS = 100;
const PER_FOLDER = 100;
const TURNS = 10;

async function makeFolder(cwd: string): Promise<void> {
  for (let d = 0; d < FOLDERS; d++) {
    const dir = join(cwd, `src${d}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: PER_FOLDER }, (_, f) => writeFile(join(dir, `file${f}.ts`), `export const value${d}_${f} = ${d * PER_FOLDER + f};\n`.repeat(8))),
    );
  }
}

/** The baseline: every file of the folder looked at once (readdir + lstat). */
async function walk(dir: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    await lstat(path);
    count += entry.isDirectory() ? await walk(path) : 1;
  }
  return count;
}

export async function runCheckpointBench(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'panto-bench-checkpoints-'));
  const cwd = join(root, 'project');
  try {
    await makeFolder(cwd);
    const warnings: string[] = [];
    const checkpoints = await Checkpoints.start({
      dataDir: join(root, 'home'),
      cwd,
      exclude: [],
      sessionId: () => 'bench-session',
      sessionFile: () => undefined,
      warn: (message) => warnings.push(message),
    });
    if (checkpoints.off !== undefined) {
      printTable('cli: checkpoints', [['skipped', checkpoints.off]]);
      return;
    }
    const walks: number[] = [];
    for (let i = 0; i < TURNS; i++) walks.push(await time(() => walk(cwd)));
    const first = await time(() => checkpoints.beforePrompt('prompt-0', 'first'));
    await checkpoints.afterTurn('prompt-0');
    const unchanged: number[] = [];
    const changed: number[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      unchanged.push(
        await time(async () => {
          await checkpoints.beforePrompt(`u${turn}`, 'unchanged');
          await checkpoints.afterTurn(`u${turn}`);
        }),
      );
      let took = await time(() => checkpoints.beforePrompt(`c${turn}`, 'ten changed'));
      // What the turn changes (not timed): ten files in ten folders.
      for (let f = 0; f < 10; f++) await writeFile(join(cwd, `src${f * 7}`, `file${turn}.ts`), `changed in turn ${turn}\n`);
      took += await time(() => checkpoints.afterTurn(`c${turn}`));
      changed.push(took);
    }
    if (warnings.length > 0) throw new Error(warnings.join('; '));
    const baseline = median(walks);
    const ratio = (ms: number) => `${ms.toFixed(1)} ms (${(ms / baseline).toFixed(1)}× the walk)`;
    printTable(`cli: checkpoints of a ${FOLDERS * PER_FOLDER}-file folder (git ${'object store'}), per turn = two snapshots`, [
      ['walk the folder, lstat every file (baseline)', `${baseline.toFixed(1)} ms`],
      ['first checkpoint of a session (every file hashed)', ratio(first)],
      ['a turn, nothing changed', ratio(median(unchanged))],
      ['a turn that changes 10 files', ratio(median(changed))],
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runCheckpointBench();
