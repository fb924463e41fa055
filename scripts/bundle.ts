/**
 * Bundles each Lambda handler on its own with esbuild — what a cold start loads — into
 * dist/functions/<name>/index.mjs, and reports each bundle's size.
 *
 *   npx tsx scripts/bundle.ts
 *
 * Everything is bundled (nothing external): the AWS SDK the Lambda runtime ships is not
 * the version this code was tested with. sst.config.ts bundles the same entry points with
 * the same options when it deploys.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The handlers sst.config.ts deploys, by function. */
export const HANDLERS = {
  api: join(root, 'functions/src/handlers/api.ts'),
  stream: join(root, 'functions/src/handlers/stream.ts'),
  'ttl-cleanup': join(root, 'functions/src/handlers/ttl-cleanup.ts'),
  'archive-sweep': join(root, 'functions/src/handlers/archive-sweep.ts'),
} as const;

export interface BundleReport {
  name: string;
  file: string;
  bytes: number;
  gzipBytes: number;
}

/**
 * Bundles each entry the way Lambda runs it: Node, ESM, minified, workspace packages from
 * their TypeScript sources. ESM output needs `require` for the CommonJS parts of the
 * dependencies, hence the banner.
 */
export async function bundleHandlers(
  entries: Readonly<Record<string, string>> = HANDLERS,
  outdir: string = join(root, 'dist/functions'),
): Promise<BundleReport[]> {
  const reports: BundleReport[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const file = join(outdir, name, 'index.mjs');
    await mkdir(dirname(file), { recursive: true });
    await build({
      entryPoints: [entry],
      outfile: file,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@panto/source'],
      minify: true,
      legalComments: 'none',
      logLevel: 'warning',
      banner: { js: "import { createRequire as __panto_createRequire } from 'node:module'; const require = __panto_createRequire(import.meta.url);" },
    });
    const bytes = await readFile(file);
    reports.push({ name, file, bytes: bytes.length, gzipBytes: gzipSync(bytes).length });
  }
  return reports;
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const report of await bundleHandlers()) {
    console.log(
      `${report.name.padEnd(11)} ${formatBytes(report.bytes).padStart(10)}  (${formatBytes(report.gzipBytes)} gzipped)  ${relative(root, report.file)}`,
    );
  }
}
