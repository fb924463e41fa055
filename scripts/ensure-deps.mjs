// Installs what is missing before `npm test` / `npm start`: the npm dependencies, at the
// versions of the committed lockfile, when node_modules is absent or older than the lockfile.
// `npm install` rather than `npm ci`: vite lists an optional Windows-only dependency that the
// registry does not serve, which `npm ci` reports as a lockfile mismatch; `npm install`
// skips it and leaves the lockfile as it is.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = join(root, 'package-lock.json');
const marker = join(root, 'node_modules', '.package-lock.json');

const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs;
if (stale) {
  console.error('panto: installing npm dependencies from package-lock.json …');
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}
