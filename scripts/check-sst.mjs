// `npm run check:sst`: type-checks sst.config.ts and infra/ against SST's own platform types. Those
// are generated into .sst/platform by `sst install` (npm packages only, ~50 s the first
// time, ~320 MB), which this runs when they are missing or from another SST version.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'functions', 'package.json'));
// `sst` exports no package.json; its entry point is <package>/dist/index.js.
const sstDir = join(dirname(require.resolve('sst')), '..');
const { version } = JSON.parse(readFileSync(join(sstDir, 'package.json'), 'utf8'));
const platform = join(root, '.sst', 'platform');
const installed = existsSync(join(platform, 'version')) ? readFileSync(join(platform, 'version'), 'utf8').trim() : '';

if (!existsSync(join(platform, 'config.d.ts')) || installed !== version) {
  console.error(`check:sst: installing SST ${version}'s platform types into .sst/platform …`);
  execFileSync(process.execPath, [join(sstDir, 'bin', 'sst.mjs'), 'install'], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      SST_SKIP_DEPENDENCY_CHECK: '1',
      SST_NO_BUN: '1',
      SST_TELEMETRY_DISABLED: '1',
      // `sst install` needs a stage name; it deploys nothing.
      SST_STAGE: process.env.SST_STAGE ?? 'check',
    },
  });
}
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.sst.json')], {
  cwd: root,
  stdio: 'inherit',
});
console.error(`check:sst: sst.config.ts and infra/ type-check against SST ${version}`);
