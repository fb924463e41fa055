/** The sandbox of a run, from `--sandbox`, `--allow-network`, the user's settings and what this machine has. */
import { chmodSync, existsSync, mkdtempSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BubblewrapSandbox } from './bubblewrap.js';
import { detectSandbox, type SandboxSupport } from './detect.js';
import { DomainProxy } from './network-proxy.js';
import type { CommandSandbox, NetworkAccess, SandboxMode } from './policy.js';
import { readSandboxSettings } from './settings.js';
import { removeForcefully } from './tool-files.js';

export interface SandboxRequest {
  mode: SandboxMode;
  /** `--allow-network`. */
  allowNetwork: boolean;
  cwd: string;
  home: string;
  /** `$PANTO_HOME`, whose settings.json may list allowed domains. */
  dataDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** How a path is shown to the user. */
  show: (path: string) => string;
  /** What this machine has (default: {@link detectSandbox}). */
  support?: SandboxSupport;
}

export interface StartedSandbox {
  /** Undefined: commands run without one (`--sandbox off`, or none available) and each asks first. */
  sandbox: CommandSandbox | undefined;
  /** What to tell the user once, at the start. */
  notices: string[];
  /** Stops the domain proxy, if one runs. */
  close(): Promise<void>;
}

/** Starts the sandbox a run asks for, or says why there is none. Never throws for what the machine lacks. */
export async function startSandbox(request: SandboxRequest): Promise<StartedSandbox> {
  const none = (notices: string[]): StartedSandbox => ({ sandbox: undefined, notices, close: async () => undefined });
  if (request.mode === 'off') return none([]);
  const support = request.support ?? (await detectSandbox(request.env));
  if (!support.available) {
    return none([`panto: no sandbox for bash here: ${support.reason}. Every command asks before it runs (-p refuses them without --yolo).`]);
  }
  const notices: string[] = [];
  const settingsFile = join(request.dataDir, 'settings.json');
  const { settings, problems } = await readSandboxSettings(settingsFile, request.show(settingsFile));
  for (const problem of problems) notices.push(`panto: ${problem}`);
  const tempDirs = existingRealPaths(['/tmp', tmpdir()]);
  let network: NetworkAccess = { type: request.allowNetwork ? 'all' : 'none' };
  let proxy: DomainProxy | undefined;
  if (network.type === 'none' && settings.allowedDomains.length > 0) {
    if (support.socat === undefined) {
      notices.push(
        `panto: ${request.show(settingsFile)} allows some domains, but socat is not installed (apt-get install socat): sandboxed commands get no network`,
      );
    } else {
      proxy = await DomainProxy.start(settings.allowedDomains, tempDirs[0] ?? tmpdir());
      network = { type: 'domains', allowedDomains: settings.allowedDomains, proxySocket: proxy.socketPath };
    }
  }
  // The commands' /tmp: a folder of this session's, so that nothing of the host's temp folder
  // (tsx's compile cache, tmux's and other programs' sockets, another panto's proxy) is theirs
  // to write or connect to. Removed when panto exits.
  const hostTemp = tempDirs[0] ?? tmpdir();
  removeOrphanedTemps(hostTemp);
  const privateTemp = realpathSync(mkdtempSync(join(hostTemp, `${TEMP_PREFIX}${process.pid}-`)));
  chmodSync(privateTemp, 0o700);
  const removeTemp = () => void removeForcefully(privateTemp);
  process.once('exit', removeTemp);
  const sandbox = new BubblewrapSandbox({
    bwrap: support.bwrap,
    mode: request.mode,
    cwd: realpathSync(request.cwd),
    home: request.home,
    dataDir: request.dataDir,
    tempDirs,
    privateTemp,
    network,
    env: request.env,
  });
  return {
    sandbox,
    notices,
    close: async () => {
      await proxy?.close();
      process.off('exit', removeTemp);
      removeTemp();
    },
  };
}

/** The name of a session's temp folder in the host's: this prefix, panto's pid, a dash, random characters. */
const TEMP_PREFIX = 'panto-tmp-';

/** Removes the temp folders of pantos that are gone without removing theirs (killed outright). */
function removeOrphanedTemps(hostTemp: string): void {
  let names: string[];
  try {
    names = readdirSync(hostTemp);
  } catch {
    // No host temp folder to sweep: nothing was left there.
    return;
  }
  for (const name of names) {
    const pid = Number(/^panto-tmp-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isRunning(pid)) continue;
    removeForcefully(join(hostTemp, name));
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: running, as another user (whose folder it is).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function existingRealPaths(paths: readonly string[]): string[] {
  const found = new Set<string>();
  for (const path of paths) if (existsSync(path)) found.add(realpathSync(path));
  return [...found];
}
