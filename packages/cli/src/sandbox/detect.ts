/** Whether this machine can sandbox commands: Linux with a `bwrap` that can make its namespaces here. */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export type SandboxSupport =
  | { available: true; bwrap: string; socat: string | undefined }
  /** `reason` says what is missing, in a line for the user. */
  | { available: false; reason: string };

/** How long the trial run of `bwrap` may take. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Finds `bwrap` (and `socat`, for the domain allow list) on `PATH` and runs `bash -c :` in
 * the namespaces a command gets: user namespaces may be off (a sysctl, an AppArmor rule), or a
 * container may refuse to nest. Never throws.
 */
export async function detectSandbox(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform = process.platform): Promise<SandboxSupport> {
  if (platform !== 'linux') return { available: false, reason: `panto has no OS sandbox for ${platform} yet` };
  const bwrap = findProgram('bwrap', env.PATH);
  if (bwrap === undefined) return { available: false, reason: 'bubblewrap (bwrap) is not installed (apt-get install bubblewrap, dnf install bubblewrap)' };
  const probe = await tryRun(bwrap, [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--',
    'bash',
    '-c',
    ':',
  ]);
  if (probe !== undefined) return { available: false, reason: `bwrap cannot make a sandbox here: ${probe}` };
  return { available: true, bwrap, socat: findProgram('socat', env.PATH) };
}

/** The first executable `name` on `path`. */
export function findProgram(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Undefined when the program exited 0; else what went wrong, in one line. */
function tryRun(file: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error) => resolve(error.message));
    child.once('close', (code, signal) => {
      if (code === 0) resolve(undefined);
      else resolve(stderr.trim().split('\n')[0] || (signal ? `killed by ${signal}` : `exit code ${code}`));
    });
  });
}
