/**
 * Bundles ./writer.ts from the current sources into one ESM file that plain `node` starts
 * in a fraction of what tsx takes — the kill-storm test starts a writer several times a
 * second. The native lock addon stays external, resolved from the repository's node_modules.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../../../..');

/** Builds the writer and returns the path of the bundle. */
export async function bundleWriter(): Promise<string> {
  const outdir = join(root, 'node_modules/.cache/panto-tests');
  await mkdir(outdir, { recursive: true });
  const outfile = join(outdir, `writer-${process.pid}-${Date.now()}.mjs`);
  await build({
    entryPoints: [join(here, 'writer.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    external: ['fs-native-extensions'],
    logLevel: 'silent',
  });
  return outfile;
}
