/**
 * `npm run bench`: every benchmark, each printing ratios against a baseline measured in
 * the same run. Pass names to run some: `npm run bench -- core aws`.
 */
import { existsSync } from 'node:fs';

interface Bench {
  name: string;
  file: string;
  run: string;
}

const benches: Bench[] = [
  { name: 'core', file: './core.ts', run: 'runCoreBench' },
  { name: 'aws', file: './aws.ts', run: 'runAwsBench' },
  { name: 'adapters', file: './adapters.ts', run: 'runAdaptersBench' },
  { name: 'export', file: './export.ts', run: 'runExportBench' },
  { name: 'service', file: './service.ts', run: 'runServiceBench' },
  { name: 'writes', file: './turn-writes.ts', run: 'runTurnWritesBench' },
  { name: 'cpu', file: './turn-cpu.ts', run: 'runTurnCpuBench' },
  { name: 'followers', file: './followers.ts', run: 'runFollowersBench' },
  { name: 'budget', file: './budget.ts', run: 'runBudgetBench' },
  { name: 'web', file: './web.ts', run: 'runWebBench' },
  { name: 'cli', file: './cli.ts', run: 'runCliBench' },
  { name: 'cold-start', file: './cold-start.ts', run: 'runColdStartBench' },
  { name: 'local-load', file: './local-load.ts', run: 'runLocalLoadBench' },
  { name: 'lambda-memory', file: './lambda-memory.ts', run: 'runLambdaMemoryBench' },
];

const wanted = process.argv.slice(2);
for (const bench of benches) {
  if (wanted.length > 0 && !wanted.includes(bench.name)) continue;
  if (!existsSync(new URL(bench.file, import.meta.url))) continue;
  const module = (await import(bench.file)) as Record<string, () => Promise<void>>;
  const run = module[bench.run];
  if (typeof run !== 'function') throw new Error(`${bench.file} does not export ${bench.run}`);
  await run();
}
