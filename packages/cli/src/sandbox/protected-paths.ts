/**
 * What a sandboxed command may not read: the user's credentials, panto's own folder, `.env`
 * files above the working folder, and the sockets of agents that hold keys or root. The list
 * is in docs/cli.md ("What the sandbox refuses"); keep the two in step.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/** Credentials under the home folder (files or folders), relative to it. */
export const HOME_SECRETS: readonly string[] = [
  '.ssh',
  '.aws',
  '.config/gh',
  '.config/hub',
  '.gnupg',
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.docker',
  '.kube',
  '.config/gcloud',
  '.azure',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.password-store',
  '.local/share/keyrings',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
];

/**
 * Sockets that would hand a command root, the user's keys or the user's shell: the container
 * engines', and GNU screen's (`screen -X stuff` types into the user's sessions; tmux's live in
 * the temp folder, which commands do not see).
 */
export const SYSTEM_SOCKETS: readonly string[] = [
  '/run/docker.sock',
  '/var/run/docker.sock',
  '/run/podman/podman.sock',
  '/run/containerd/containerd.sock',
  '/run/buildkit/buildkitd.sock',
  '/run/screen',
  '/var/run/screen',
];

export interface ProtectedPathPlaces {
  /** The working folder (real path). */
  cwd: string;
  /** The user's home folder. */
  home: string;
  /** `$PANTO_HOME`: sessions of every folder, the trust list, MCP configs with tokens. */
  dataDir: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** A path to hide, and whether it is a folder (hidden behind an empty unreadable folder) or not (an unreadable file). */
export interface ProtectedPath {
  path: string;
  folder: boolean;
}

/**
 * The protected paths that exist now (a sandbox asks before every command: a `~/.aws` made
 * since the last one is hidden too). A path that holds the working folder is left out: hiding
 * it would hide the folder itself.
 */
export function protectedPaths(places: ProtectedPathPlaces): ProtectedPath[] {
  const { cwd, home, dataDir, env } = places;
  const candidates = [
    ...HOME_SECRETS.map((relative) => join(home, relative)),
    dataDir,
    ...envFilesAbove(cwd, home),
    ...SYSTEM_SOCKETS,
    ...[env.SSH_AUTH_SOCK, env.GPG_AGENT_INFO?.split(':')[0], runtimeDir(env), ...terminalSockets(env)].filter(
      (path): path is string => path?.startsWith('/') === true,
    ),
  ];
  const found: ProtectedPath[] = [];
  const seen = new Set<string>();
  for (const path of candidates) {
    if (seen.has(path) || contains(path, cwd)) continue;
    seen.add(path);
    const kind = kindOf(path);
    if (kind !== undefined) found.push({ path, folder: kind === 'folder' });
  }
  return found;
}

/** The `.env` files looked for by name in a folder that cannot be listed. */
const COMMON_ENV_FILES = [
  '.env',
  '.env.local',
  '.env.development',
  '.env.development.local',
  '.env.production',
  '.env.production.local',
  '.env.test',
  '.env.test.local',
  '.env.staging',
];

/** `.env` and `.env.*` files in the folders above `cwd` and in the home folder (those in `cwd` and below are the project's own). */
function envFilesAbove(cwd: string, home: string): string[] {
  const folders = new Set<string>([home]);
  for (let folder = dirname(cwd); ; folder = dirname(folder)) {
    folders.add(folder);
    if (dirname(folder) === folder) break;
  }
  folders.delete(cwd);
  const files: string[] = [];
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      // A folder panto may not list may still be searchable (mode 711): a command that knows a
      // name can open it. Hide the names people use, where they exist.
      names = COMMON_ENV_FILES.filter((name) => kindOf(join(folder, name)) !== undefined);
    }
    for (const name of names) if (name === '.env' || name.startsWith('.env.')) files.push(join(folder, name));
  }
  return files;
}

/** The user's runtime folder (`/run/user/<uid>`): the D-Bus session, gpg-agent, keyring and podman sockets. */
function runtimeDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.XDG_RUNTIME_DIR) return env.XDG_RUNTIME_DIR;
  const uid = process.getuid?.();
  return uid === undefined ? undefined : `/run/user/${uid}`;
}

/** The sockets of the terminal multiplexers panto may run in, where they are not in the temp folder: tmux's (`$TMUX`, `$TMUX_TMPDIR`) and screen's (`$SCREENDIR`). */
function terminalSockets(env: Readonly<Record<string, string | undefined>>): (string | undefined)[] {
  const uid = process.getuid?.();
  return [env.TMUX?.split(',')[0], env.TMUX_TMPDIR && uid !== undefined ? join(env.TMUX_TMPDIR, `tmux-${uid}`) : undefined, env.SCREENDIR];
}

/** What `path` is, following links (a mount lands on the link's target); undefined when nothing is there. */
function kindOf(path: string): 'folder' | 'other' | undefined {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch {
    // Nothing there (or a link to nothing): nothing to hide.
    return undefined;
  }
}

/** Whether `outer` is `inner` or one of its parents. */
function contains(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : `${outer}${sep}`);
}
