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

interface Init {
  /** Wall-clock milliseconds from before the entry's import to its handler being ready. */
  ms: number;
  /** CPU milliseconds (user + system) the process spent on it: less swayed by other work on the machine. */
  cpuMs: number;
}

/** One fresh process importing the bundle's entry. */
async function importTime(file: string): Promise<Init> {
  const script = `
    globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };
    const cpu = process.cpuUsage();
    const start = performance.now();
    const mod = await import(${JSON.stringify(pathToFileURL(file).href)});
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (typeof mod.handler !== 'function') throw new Error('no handler');
    process.stdout.write(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000 }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, ...LAMBDA_LINKED_ENV } });
  return JSON.parse(stdout) as Init;
}

export async function runColdStartBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'panto-bench-cold-'));
  try {
    const reports = await bundleHandlers({ api: HANDLERS.api, stream: HANDLERS.stream, 'sdk-floor': floorEntry }, dir);
    const times = new Map<string, Init[]>(reports.map((report) => [report.name, []]));
    for (const report of reports) await importTime(report.file); // warm the file cache
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? reports : [...reports].reverse();
      for (const report of order) times.get(report.name)!.push(await importTime(report.file));
    }
    const medians = (name: string) => {
      const runs = times.get(name)!;
      return { ms: median(runs.map((each) => each.ms)), cpuMs: median(runs.map((each) => each.cpuMs)) };
    };
    const floor = medians('sdk-floor');
    printTable(
      `Lambda cold start: import of each bundle's entry in a fresh node (median of ${RUNS}) vs the SDK-floor handler`,
      reports.map((report) => {
        const { ms, cpuMs } = medians(report.name);
        const ratio = report.name === 'sdk-floor' ? '(baseline)' : `${(ms / floor.ms).toFixed(2)}× (target ≤ 1.3×), ${(cpuMs / floor.cpuMs).toFixed(2)}× CPU`;
        const size = `${formatBytes(report.bytes)} (${formatBytes(report.gzipBytes)} gzipped) loaded, ${formatBytes(report.lazyBytes)} lazy`;
        return [report.name, `${ms.toFixed(0).padStart(4)} ms (${cpuMs.toFixed(0)} ms CPU)  ${ratio.padEnd(36)}  ${size}`] as const;
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runColdStartBench();
