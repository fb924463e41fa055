/**
 * Bundles each Lambda handler on its own with esbuild into dist/functions/<name>/ — its entry
 * `index.mjs`, the chunks it imports at once, and the chunks it imports only when it needs
 * them (code splitting: the provider SDKs at the first turn, OpenTelemetry only when tracing
 * is on) — and reports what a cold start loads and what it may load later.
 *
 *   npx tsx scripts/bundle.ts
 *
 * Everything is bundled (nothing external): the AWS SDK the Lambda runtime ships is not
 * the version this code was tested with. sst.config.ts bundles the same entry points with
 * the same options when it deploys (infra/lambda.ts, `splitting: true`).
 */
import { readFile, rm } from 'node:fs/promises';
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

/**
 * What SST puts in the functions' environment (see sst.config.ts `link:`), with placeholder
 * values: enough for a bundle to load as Lambda loads it (test/lambda-bundles.test.ts,
 * bench/cold-start.ts).
 */
export const LAMBDA_LINKED_ENV: Readonly<Record<string, string>> = {
  SST_RESOURCE_App: JSON.stringify({ name: 'panto', stage: 'test' }),
  SST_RESOURCE_PantoTable: JSON.stringify({ name: 'panto-test' }),
  SST_RESOURCE_PantoBucket: JSON.stringify({ name: 'panto-test' }),
  SST_RESOURCE_AnthropicApiKey: JSON.stringify({ value: 'test-key' }),
  SST_RESOURCE_OpenAIApiKey: JSON.stringify({ value: '' }),
  SST_RESOURCE_MCPServers: JSON.stringify({ value: '' }),
  SST_RESOURCE_PantoAuth: JSON.stringify({ issuer: 'https://issuer.example/', audience: 'panto', jwksUrl: 'https://issuer.example/jwks' }),
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export interface BundleReport {
  name: string;
  /** The entry: what Lambda imports. */
  file: string;
  /** The entry and every chunk it imports statically: what a cold start loads. */
  eager: string[];
  /** Chunks reached only through a dynamic `import()`: loaded when first needed. */
  lazy: string[];
  /**
   * The source files (paths from the repository root, as esbuild's metafile names them) with
   * code in `eager`: what a cold start evaluates. `lazyInputs`: those only in `lazy`.
   */
  eagerInputs: string[];
  lazyInputs: string[];
  /** Sizes of `eager`, plain and gzipped, and of `lazy`. */
  bytes: number;
  gzipBytes: number;
  lazyBytes: number;
}

/**
 * Bundles each entry the way Lambda runs it: Node, ESM, minified, workspace packages from
 * their TypeScript sources, dependencies from their ESM builds where they have one (the AWS
 * SDK's is tree-shaken, and spares a cold start the CommonJS interop of copying each client's
 * hundreds of exports at every module that imports it). ESM output needs `require` for the CommonJS parts of the
 * dependencies, hence the banner.
 */
export async function bundleHandlers(
  entries: Readonly<Record<string, string>> = HANDLERS,
  outdir: string = join(root, 'dist/functions'),
): Promise<BundleReport[]> {
  const reports: BundleReport[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const dir = join(outdir, name);
    await rm(dir, { recursive: true, force: true });
    const { metafile } = await build({
      entryPoints: { index: entry },
      outdir: dir,
      bundle: true,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      outExtension: { '.js': '.mjs' },
      metafile: true,
      absWorkingDir: root,
      platform: 'node',
      mainFields: ['module', 'main'],
      format: 'esm',
      target: 'node20',
      conditions: ['@panto/source'],
      minify: true,
      legalComments: 'none',
      logLevel: 'warning',
      banner: { js: "import { createRequire as __panto_createRequire } from 'node:module'; const require = __panto_createRequire(import.meta.url);" },
    });
    const file = join(dir, 'index.mjs');
    const outputs = Object.fromEntries(Object.entries(metafile.outputs).map(([path, output]) => [resolve(root, path), output]));
    const eager = closure(
      file,
      (path) => outputs[path]?.imports.filter((each) => each.kind === 'import-statement' && !each.external).map((each) => resolve(root, each.path)) ?? [],
    );
    const lazy = Object.keys(outputs).filter((path) => path.endsWith('.mjs') && !eager.includes(path));
    const inputsOf = (files: readonly string[]) =>
      new Set(files.flatMap((path) => Object.entries(outputs[path]?.inputs ?? {}).flatMap(([input, { bytesInOutput }]) => (bytesInOutput > 0 ? [input] : []))));
    const eagerInputs = inputsOf(eager);
    const eagerCode = Buffer.concat(await Promise.all(eager.map((path) => readFile(path))));
    const lazySizes = await Promise.all(lazy.map(async (path) => (await readFile(path)).length));
    reports.push({
      name,
      file,
      eager,
      lazy,
      eagerInputs: [...eagerInputs],
      lazyInputs: [...inputsOf(lazy)].filter((input) => !eagerInputs.has(input)),
      bytes: eagerCode.length,
      gzipBytes: gzipSync(eagerCode).length,
      lazyBytes: lazySizes.reduce((sum, size) => sum + size, 0),
    });
  }
  return reports;
}

/** `start` and everything `next` reaches from it. */
function closure(start: string, next: (path: string) => string[]): string[] {
  const seen = new Set<string>([start]);
  for (const path of seen) for (const each of next(path)) seen.add(each);
  return [...seen];
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const report of await bundleHandlers()) {
    console.log(
      `${report.name.padEnd(13)} ${formatBytes(report.bytes).padStart(10)}  (${formatBytes(report.gzipBytes)} gzipped) at a cold start, ${formatBytes(report.lazyBytes)} more on demand  ${relative(root, report.file)}`,
    );
  }
}
