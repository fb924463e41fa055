/**
 * `npm run bench -- cold-start`: how long the api and stream Lambda bundles take to load in
 * a fresh Node — a new `node` process per run timing `await import(<the bundle's entry>)`,
 * which runs its module scope (config, clients, telemetry, the app) — against an SDK-floor
 * handler (bench/fixtures/sdk-floor-handler.ts: it only builds the DynamoDB and S3 clients)
 * bundled by the same scripts/bundle.ts in the same run. Medians of interleaved runs; the
 * target is ≤ 1.3× the floor. The environment is what SST links (`LAMBDA_LINKED_ENV`).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bundleHandlers, formatBytes, HANDLERS, LAMBDA_LINKED_ENV } from '../scripts/bundle.js';
import { median, printTable } from './util.js';

const RUNS = 15;
const run = promisify(execFile);
const floorEntry = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/sdk-floor-handler.ts');

/** One fresh process: milliseconds from before the entry's import to its handler being ready. */
async function importTime(file: string): Promise<number> {
  const script = `
    globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };
    const start = performance.now();
    const mod = await import(${JSON.stringify(pathToFileURL(file).href)});
    if (typeof mod.handler !== 'function') throw new Error('no handler');
    process.stdout.write(String(performance.now() - start));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, ...LAMBDA_LINKED_ENV } });
  return Number(stdout);
}

export async function runColdStartBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'panto-bench-cold-'));
  try {
    const reports = await bundleHandlers({ api: HANDLERS.api, stream: HANDLERS.stream, 'sdk-floor': floorEntry }, dir);
    const times = new Map<string, number[]>(reports.map((report) => [report.name, []]));
    for (const report of reports) await importTime(report.file); // warm the file cache
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? reports : [...reports].reverse();
      for (const report of order) times.get(report.name)!.push(await importTime(report.file));
    }
    const floor = median(times.get('sdk-floor')!);
    printTable(
      `Lambda cold start: import of each bundle's entry in a fresh node (median of ${RUNS}) vs the SDK-floor handler`,
      reports.map((report) => {
        const ms = median(times.get(report.name)!);
        const ratio = report.name === 'sdk-floor' ? '(baseline)' : `${(ms / floor).toFixed(2)}× (target ≤ 1.3×)`;
        const size = `${formatBytes(report.bytes)} (${formatBytes(report.gzipBytes)} gzipped) loaded, ${formatBytes(report.lazyBytes)} lazy`;
        return [report.name, `${ms.toFixed(0).padStart(4)} ms  ${ratio.padEnd(22)}  ${size}`] as const;
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runColdStartBench();
