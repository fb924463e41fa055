/**
 * vitest globalSetup for the browser tests (test/web*.test.ts): Debian's Chromium, installed
 * with apt when `/usr/bin/chromium` is absent (about 290 MB: the first run on a fresh machine
 * takes minutes, later ones nothing), a colour emoji font when the machine has none (Debian's
 * `fonts-noto-color-emoji`, about 10 MB: a desktop has its own — Apple Color Emoji, Segoe UI
 * Emoji, Noto Color Emoji — which the page's font stack names; a bare test machine has none,
 * and emoji would be boxes there), and the web client built into `web/dist` when it is
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
/** The colour emoji font of Debian's `fonts-noto-color-emoji`. */
export const EMOJI_FONT = '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Installs the Debian packages of `packages` with apt-get (as root, or with `sudo -n`). */
async function aptInstall(packages: string[]): Promise<void> {
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = async (...args: string[]): Promise<void> => {
    const [command, ...rest] = [...sudo, 'apt-get', ...args];
    await run(command!, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  };
  process.stderr.write(`panto tests: installing Debian's ${packages.join(' and ')} for the browser tests (apt-get) …\n`);
  try {
    await apt('update');
    await apt('install', '-y', ...packages);
  } catch (error) {
    throw new Error(
      `could not install ${packages.join(', ')} for the browser tests (apt-get install -y ${packages.join(' ')}): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

export default async function setup(): Promise<void> {
  const missing = [...(existsSync(CHROMIUM) ? [] : ['chromium']), ...(existsSync(EMOJI_FONT) ? [] : ['fonts-noto-color-emoji'])];
  if (missing.length > 0) await aptInstall(missing);
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still absent`);
  await buildWeb(root);
}
