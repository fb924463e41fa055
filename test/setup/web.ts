/**
 * vitest globalSetup for the browser tests (test/web.test.ts): Debian's Chromium, installed
 * with apt when `/usr/bin/chromium` is absent (about 290 MB: the first run on a fresh machine
 * takes minutes, later ones nothing), and the web client built into `web/dist` when it is
 * missing or older than its sources — once, before any test starts a server that serves it.
 * Playwright drives that browser through `executablePath`: it downloads no browser of its own.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildWeb } from '../../scripts/local/web.js';

export const CHROMIUM = '/usr/bin/chromium';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function installChromium(): Promise<void> {
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = async (...args: string[]): Promise<void> => {
    const [command, ...rest] = [...sudo, 'apt-get', ...args];
    await run(command!, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  };
  process.stderr.write(`panto tests: ${CHROMIUM} is absent; installing Debian's chromium (apt-get, ~290 MB) …\n`);
  try {
    await apt('update');
    await apt('install', '-y', 'chromium');
  } catch (error) {
    throw new Error(
      `could not install chromium for the browser tests (apt-get install -y chromium): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still absent`);
}

export default async function setup(): Promise<void> {
  if (!existsSync(CHROMIUM)) await installChromium();
  await buildWeb(root);
}
