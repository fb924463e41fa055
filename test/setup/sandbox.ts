/**
 * vitest globalSetup for the sandbox tests (test/cli-sandbox.test.ts, the bash tool's
 * sandboxed runs): Debian's bubblewrap and socat, installed with apt when `bwrap` or `socat`
 * is absent (a few hundred KB; the first run on a fresh machine takes seconds, later ones
 * nothing) — as test/setup/web.ts does for Chromium.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
// By path: vitest loads global setups without the @panto/source condition that @panto/cli/internal needs.
import { findProgram } from '../../packages/cli/src/sandbox/detect.js';

const run = promisify(execFile);

/** The Debian packages the sandbox needs, and the program each provides. */
const PACKAGES = { bubblewrap: 'bwrap', socat: 'socat' } as const;

export default async function setup(): Promise<void> {
  const missing = Object.entries(PACKAGES).filter(([, program]) => findProgram(program, process.env.PATH) === undefined);
  if (missing.length === 0) return;
  const names = missing.map(([name]) => name);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = async (...args: string[]): Promise<void> => {
    const [command, ...rest] = [...sudo, 'apt-get', ...args];
    await run(command!, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 10 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  };
  process.stderr.write(`panto tests: ${missing.map(([, program]) => program).join(' and ')} absent; installing Debian's ${names.join(' and ')} (apt-get) …\n`);
  try {
    await apt('update');
    await apt('install', '-y', ...names);
  } catch (error) {
    throw new Error(`could not install ${names.join(' and ')} for the sandbox tests (apt-get install -y ${names.join(' ')}): ${(error as Error).message}`, {
      cause: error,
    });
  }
  const still = missing.filter(([, program]) => findProgram(program, process.env.PATH) === undefined);
  if (still.length > 0) throw new Error(`apt-get installed ${names.join(' and ')}, but ${still.map(([, program]) => program).join(' and ')} is still absent`);
}
