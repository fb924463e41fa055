/**
 * `npm run pack`: an installable `panto` that needs neither this repository nor unpublished
 * packages — `dist/pack/panto-cli-<version>.tgz`, for `npm install -g <that file>`.
 *
 *   npm run pack                       # → dist/pack/panto-cli-0.1.0.tgz
 *   npm run pack -- --out /tmp/packs   # somewhere else
 *
 * The CLI and everything it imports (@panto/core, the provider SDKs, marked…) are bundled by
 * esbuild into the package's `dist/` (code split: what a turn needs first, the rest loaded on
 * demand, as the Lambda bundles are). Two dependencies stay real packages, installed from the
 * npm registry with it, because they carry per-platform binaries npm must choose at install
 * time: `fs-native-extensions` (the session file lock, a native addon) and `tsx` (loads
 * extensions written in TypeScript; its esbuild is a binary per platform).
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The packages that stay external, at the versions the repository pins (package-lock.json). */
export const EXTERNAL = ['fs-native-extensions', 'tsx'] as const;

interface PackageJson {
  version: string;
  description?: string;
  license?: string;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
}

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

/** The exact version of an external package: the CLI's or core's pin. */
async function pinned(name: string): Promise<string> {
  for (const file of ['packages/cli/package.json', 'packages/core/package.json']) {
    const version = (await readJson<PackageJson>(join(root, file))).dependencies?.[name];
    if (version !== undefined) return version;
  }
  throw new Error(`${name} is pinned by neither packages/cli nor packages/core`);
}

/** Builds the package in `stage` and packs it into `out`; returns the tarball's path. */
export async function packCli(out: string = join(root, 'dist/pack')): Promise<string> {
  const cli = await readJson<PackageJson>(join(root, 'packages/cli/package.json'));
  const stage = join(out, 'stage', 'cli');
  await rm(stage, { recursive: true, force: true });
  await mkdir(stage, { recursive: true });
  await build({
    entryPoints: { panto: join(root, 'packages/cli/src/entry/process-main.ts') },
    outdir: join(stage, 'dist'),
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@panto/source'],
    external: [...EXTERNAL, 'tsx/*'],
    minify: true,
    legalComments: 'linked',
    logLevel: 'warning',
    banner: {
      js: "import { createRequire as __panto_createRequire } from 'node:module'; const require = __panto_createRequire(import.meta.url);",
    },
  });
  await chmod(join(stage, 'dist', 'panto.mjs'), 0o755);
  const dependencies = Object.fromEntries(await Promise.all(EXTERNAL.map(async (name) => [name, await pinned(name)] as const)));
  const manifest = {
    name: '@panto/cli',
    version: cli.version,
    description: cli.description,
    license: cli.license,
    type: 'module',
    engines: cli.engines,
    bin: { panto: './dist/panto.mjs' },
    files: ['dist'],
    dependencies,
  };
  await writeFile(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(join(stage, 'README.md'), PACKAGE_README);
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: stage, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  await rm(join(out, 'stage'), { recursive: true, force: true });
  return join(out, name);
}

const PACKAGE_README = `# @panto/cli

\`panto\`: a coding agent for your terminal whose sessions persist themselves. Built by
\`npm run pack\` in the panto repository: the CLI and @panto/core bundled in \`dist/\`.

    npm install -g ./panto-cli-<version>.tgz
    panto --help
`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--out');
  const file = await packCli(at === -1 ? undefined : resolve(process.argv[at + 1] ?? '.'));
  console.log(file);
  console.error(`install it anywhere: npm install -g --ignore-scripts ${file}   (or --prefix <folder>: then <folder>/bin/panto)`);
}
