import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function printTable(title: string, rows: readonly (readonly [string, string])[]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`\n${title}`);
  console.log('-'.repeat(title.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

let collect: (() => void) | undefined;

/**
 * A full, synchronous garbage collection, so that a sample does not pay for the garbage of
 * the one before: `global.gc` when node runs with `--expose-gc`, else the same collector
 * exposed for this process (V8 flag + a fresh context), so every way of running a bench
 * (`npm run bench`, `npx tsx bench/<file>.ts`) gets it without a flag.
 */
export function fullGc(): void {
  if (collect === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed !== undefined) collect = exposed;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  }
  collect();
}

/** {@link time} after a {@link fullGc}. */
export async function timeAfterGc(fn: () => Promise<unknown>): Promise<number> {
  fullGc();
  return time(fn);
}
