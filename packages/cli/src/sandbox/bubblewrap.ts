/**
 * The Linux sandbox: each command in its own bubblewrap (`bwrap`) container — the whole
 * filesystem read-only except the working folder and a temp folder of the session's own
 * (`workspace-write`; the host's `/tmp`, with other programs' caches and sockets, is not
 * there), the files other programs run on their own read-only wherever they are in the folder
 * (./tool-files.ts), secrets behind unreadable placeholders, its own PID namespace (panto's
 * process is not there to read), no network namespace of the host, and no capabilities. Why
 * bubblewrap itself and not `@anthropic-ai/sandbox-runtime`: docs/cli.md.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { PROXY_PORT } from './network-proxy.js';
import { placeholdersFor, type Placeholders } from './placeholders.js';
import { NEED_DESCRIPTIONS, type CommandSandbox, type NetworkAccess, type SandboxedCommand, type SandboxMode, type SandboxNeed } from './policy.js';
import { protectedPaths, type ProtectedPath } from './protected-paths.js';
import { mountTarget, removeForcefully, TOOL_FILE_NAMES, ToolFileScanner, type ToolFile } from './tool-files.js';

export interface BubblewrapOptions {
  /** The `bwrap` program (an absolute path). */
  bwrap: string;
  mode: Exclude<SandboxMode, 'off'>;
  /** The working folder (real path). */
  cwd: string;
  home: string;
  /** `$PANTO_HOME`. */
  dataDir: string;
  /** The host's temp folders (real paths): `/tmp` and `$TMPDIR`. Under `workspace-write` commands see {@link privateTemp} there instead. */
  tempDirs: readonly string[];
  /** The session's own temp folder (made by panto, owner-only), mounted over each of {@link tempDirs} under `workspace-write`. */
  privateTemp: string;
  network: NetworkAccess;
  /** The environment commands start from (for the agents' sockets it names). */
  env: Readonly<Record<string, string | undefined>>;
}

/** A `bwrap` sandbox for the commands of one run. */
export class BubblewrapSandbox implements CommandSandbox {
  readonly mode: Exclude<SandboxMode, 'off'>;
  readonly standing: ReadonlySet<SandboxNeed>;
  readonly #options: BubblewrapOptions;
  readonly #toolFiles: ToolFileScanner;
  #placeholders: Placeholders | undefined;

  constructor(options: BubblewrapOptions) {
    this.#options = options;
    this.mode = options.mode;
    this.standing = new Set(options.network.type === 'all' ? ['network'] : []);
    this.#toolFiles = new ToolFileScanner(options.cwd);
  }

  writableRoots(): readonly string[] {
    return this.mode === 'workspace-write' ? [this.#options.cwd] : [];
  }

  allowsWrite(path: string): boolean {
    if (this.mode !== 'workspace-write') return false;
    const { cwd } = this.#options;
    const target = realTarget(resolve(path));
    if (target === undefined || !within(target, cwd)) return false;
    return !isToolFilePath(relative(cwd, target)) && !isToolFilePath(relative(cwd, resolve(path)));
  }

  allowsRead(path: string): boolean {
    const { cwd, home, dataDir, env } = this.#options;
    const target = resolve(path);
    const real = realTarget(target) ?? target;
    return !protectedPaths({ cwd, home, dataDir, env }).some((hidden) => within(target, hidden.path) || within(real, hidden.path));
  }

  describe(): string {
    const { cwd, network } = this.#options;
    const writes =
      this.mode === 'workspace-write'
        ? `Commands may write only in the working folder (${cwd}) and /tmp (the session's own); .git, .panto, .envrc, .vscode and the other files other programs run on their own are read-only there, and those a command creates are removed when it ends.`
        : 'Commands may not write anywhere (a private, empty /tmp is theirs).';
    const net =
      network.type === 'all'
        ? 'The network is open.'
        : network.type === 'domains'
          ? `The network is reachable only through a proxy (HTTP_PROXY) to ${network.allowedDomains.join(', ')}.`
          : 'There is no network.';
    return (
      `Commands run in a ${this.mode} sandbox. ${writes} ${net} Secrets (~/.ssh, ~/.aws, ~/.config/gh, .env files above the folder, …) ` +
      'cannot be read, and processes started in the background end with the command. When a command needs more, call bash again with ' +
      `"needs": ${(['network', 'write', 'full-access'] as const).map((need) => `"${need}" (${NEED_DESCRIPTIONS[need]})`).join(', ')}; the user is asked.`
    );
  }

  wrap(command: string, granted: ReadonlySet<SandboxNeed>): SandboxedCommand {
    this.#placeholders ??= placeholdersFor(this.#options.dataDir, this.#options.tempDirs[0] ?? '/tmp');
    const placeholders = this.#placeholders;
    const { cwd, home, dataDir, env } = this.#options;
    const hidden = protectedPaths({ cwd, home, dataDir, env });
    // Under workspace-write, the folder's tool files now are mounted read-only, and what the
    // command adds to them is undone when it ends; a granted write may write them.
    const guarded = this.mode === 'workspace-write' && !granted.has('write');
    const before = guarded ? this.#toolFiles.scan() : [];
    const readOnly = before.filter((file) => !file.dangling).map((file) => mountTarget(file.path));
    return {
      file: this.#options.bwrap,
      args: [...bubblewrapArgs(this.#options, granted, { hidden, placeholders, readOnly }), '--', 'bash', '-c', this.#inner(command, granted)],
      env: this.#environment(granted),
      settle: async () => (guarded ? this.#undoToolFiles(before) : []),
    };
  }

  /** Removes the tool files the command created (and dangling links of them whose target it made); says what it removed. */
  #undoToolFiles(before: readonly ToolFile[]): string[] {
    const known = new Map(before.map((file) => [file.path, file]));
    const made = this.#toolFiles.scan().filter((file) => {
      const old = known.get(file.path);
      return old === undefined || (old.dangling && !file.dangling);
    });
    if (made.length === 0) return [];
    const removed: string[] = [];
    const failed: string[] = [];
    for (const file of made) (removeForcefully(file.path) ? removed : failed).push(relative(this.#options.cwd, file.path));
    const notes = [];
    if (removed.length > 0) {
      notes.push(
        `[panto removed what the command created that other programs run on their own (${TOOL_FILE_NAMES.join(', ')}, anywhere in the folder): ${removed.join(', ')}. ` +
          'A command may not create them; if it must, call bash again with "needs": ["write"] (the user is asked).]',
      );
    }
    if (failed.length > 0) notes.push(`[panto could not remove what the command created that other programs run on their own: ${failed.join(', ')}]`);
    return notes;
  }

  /** The command, after the proxy bridge when only some domains are reachable. */
  #inner(command: string, granted: ReadonlySet<SandboxNeed>): string {
    const { network } = this.#options;
    if (network.type !== 'domains' || granted.has('network')) return command;
    // socat turns the loopback port the command's HTTP_PROXY names into panto's proxy socket;
    // the command starts once the port answers. It runs as a child (not exec'd) so that
    // socat is gone with the namespace when the command ends.
    const bridge = `socat TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:${shellQuote(network.proxySocket)} >/dev/null 2>&1 &`;
    const wait = `for _ in $(seq 400); do (: </dev/tcp/127.0.0.1/${PROXY_PORT}) 2>/dev/null && break; sleep 0.005; done`;
    return `${bridge}\n${wait}\nbash -c ${shellQuote(command)}`;
  }

  #environment(granted: ReadonlySet<SandboxNeed>): Record<string, string> {
    const env: Record<string, string> = { PANTO_SANDBOX: this.mode };
    if (this.mode === 'read-only' && !granted.has('write')) env.TMPDIR = '/tmp';
    if (this.#options.network.type === 'domains' && !granted.has('network')) {
      const proxy = `http://127.0.0.1:${PROXY_PORT}`;
      for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy']) env[name] = proxy;
      env.NO_PROXY = env.no_proxy = 'localhost,127.0.0.1,::1';
    }
    return env;
  }
}

/**
 * The `bwrap` options (before `--`) for one command: mounts in order (later ones cover
 * earlier ones), then namespaces and capabilities. Pure, so that each rule can be read and
 * tested.
 */
export function bubblewrapArgs(
  options: BubblewrapOptions,
  granted: ReadonlySet<SandboxNeed>,
  mounts: {
    hidden: readonly ProtectedPath[];
    placeholders: Placeholders;
    /** The folder's tool files (links followed), mounted read-only over the writable folder. */
    readOnly: readonly string[];
  },
): string[] {
  const { cwd, mode, network } = options;
  const { hidden, placeholders } = mounts;
  const writeAnywhere = granted.has('write');
  const args = [writeAnywhere ? '--bind' : '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  if (!writeAnywhere) {
    if (mode === 'workspace-write') {
      args.push(...writableMounts(options));
      // `-try`: one removed since the walk is no reason to fail the command.
      for (const path of mounts.readOnly) if (within(path, cwd)) args.push('--ro-bind-try', path, path);
    } else {
      args.push('--tmpfs', '/tmp');
    }
  }
  for (const { path, folder } of hidden) args.push('--ro-bind', folder ? placeholders.folder : placeholders.file, path);
  // Where the stand-ins' own folder is writable (the working folder, or every folder), cover
  // it, so that no command can swap a stand-in for a link to what it stands in front of.
  // (Inside a hidden path, $PANTO_HOME, they are out of reach already; in the host's temp
  // folder, commands see their own.)
  const reachable = !hidden.some((entry) => within(placeholders.root, entry.path));
  const writable = writeAnywhere || (mode === 'workspace-write' && within(placeholders.root, cwd) && !tempCovers(options, placeholders.root));
  if (reachable && writable) args.push('--tmpfs', placeholders.root);
  if (network.type === 'domains' && !granted.has('network')) args.push('--ro-bind', dirname(network.proxySocket), dirname(network.proxySocket));
  if (network.type !== 'all' && !granted.has('network')) args.push('--unshare-net');
  args.push('--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--unsetenv', 'SSH_AUTH_SOCK', '--chdir', cwd);
  return args;
}

/**
 * The working folder writable, and the session's temp folder over each host temp folder:
 * parents first, so that a folder inside another is mounted over it (a working folder in
 * `/tmp` stays visible; a working folder that holds `/tmp`, such as `/`, still gets the private
 * one, and so does a working folder that is `/tmp` itself).
 */
function writableMounts(options: BubblewrapOptions): string[] {
  const { cwd, tempDirs, privateTemp } = options;
  const mounts = [{ path: cwd, source: cwd, temp: false }, ...tempDirs.map((path) => ({ path, source: privateTemp, temp: true }))];
  mounts.sort((a, b) => a.path.length - b.path.length || Number(a.temp) - Number(b.temp));
  return mounts.flatMap(({ path, source }) => ['--bind', source, path]);
}

/** Whether the session's temp folder is mounted over `path` in the working folder (a host temp folder holding it is mounted after the folder). */
function tempCovers(options: BubblewrapOptions, path: string): boolean {
  return options.tempDirs.some((temp) => within(path, temp) && within(temp, options.cwd));
}

/** Whether a path relative to the working folder is, or is inside, one of the files other programs run on their own. */
function isToolFilePath(inside: string): boolean {
  const parts = inside.split(sep);
  return parts.some((part, index) => TOOL_FILE_NAMES.includes(part) || (part === '.pnpm' && parts[index - 1] === 'node_modules'));
}

/**
 * Where a write to `path` lands: links followed (the file's, and its folders'), the part
 * that does not exist yet appended. Undefined when that cannot be told (a dangling link,
 * which a write would follow) or the file has other hard links (one may be outside).
 */
function realTarget(path: string): string | undefined {
  try {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) return realpathSync(path);
    if (info.isFile() && info.nlink > 1) return undefined;
    return realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return undefined;
    if (lstatSafe(path)?.isSymbolicLink()) return undefined;
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const real = realTarget(parent);
  return real === undefined ? undefined : join(real, basename(path));
}

function lstatSafe(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    // Nothing there: the caller treats the path as absent.
    return undefined;
  }
}

function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
