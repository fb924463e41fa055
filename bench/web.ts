/**
 * `npm run bench -- web`: what the browser downloads for the web client — every file of a
 * production build of web/, gzipped — against an empty Vite page (one module setting the
 * page's text) built by the same Vite in the same run.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { viteBin, webPaths } from '../scripts/local/web.js';
import { printTable } from './util.js';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Sizes {
  raw: number;
  gzip: number;
  byType: Map<string, number>;
}

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)])));
  return nested.flat();
}

async function sizes(dir: string): Promise<Sizes> {
  const result: Sizes = { raw: 0, gzip: 0, byType: new Map() };
  for (const file of await files(dir)) {
    const bytes = await readFile(file);
    const gzip = gzipSync(bytes, { level: 9 }).byteLength;
    result.raw += bytes.byteLength;
    result.gzip += gzip;
    const type = extname(file) || relative(dir, file);
    result.byType.set(type, (result.byType.get(type) ?? 0) + gzip);
  }
  return result;
}

async function build(projectRoot: string, outDir: string): Promise<void> {
  await run(process.execPath, [viteBin(root), 'build', projectRoot, '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: projectRoot });
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

export async function runWebBench(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'panto-web-bench-'));
  try {
    const empty = join(work, 'empty');
    await mkdir(empty);
    await writeFile(
      join(empty, 'index.html'),
      '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>empty</title></head><body><script type="module" src="/main.js"></script></body></html>\n',
    );
    await writeFile(join(empty, 'main.js'), "document.body.textContent = 'hello';\n");
    await build(empty, join(work, 'empty-dist'));
    await build(webPaths(root).dir, join(work, 'web-dist'));
    const [page, baseline] = await Promise.all([sizes(join(work, 'web-dist')), sizes(join(work, 'empty-dist'))]);
    const types = [...page.byType.entries()].sort(([a], [b]) => a.localeCompare(b));
    printTable('web: the browser client, production build, gzip -9 (vs an empty Vite page, same run)', [
      ['web client, all files', `${kb(page.gzip)} gzip (${kb(page.raw)} raw)`],
      ...types.map(([type, gzip]): [string, string] => [`  ${type}`, `${kb(gzip)} gzip`]),
      ['empty Vite page, all files', `${kb(baseline.gzip)} gzip (${kb(baseline.raw)} raw)`],
      ['ratio', `${(page.gzip / baseline.gzip).toFixed(0)}× the empty page; ${kb(page.gzip - baseline.gzip)} gzip of our own and our libraries`],
    ]);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
