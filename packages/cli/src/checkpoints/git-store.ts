/**
 * The object store checkpoints live in: git's, in a private repository under
 * `$PANTO_HOME/checkpoints/<session id>/git`, run as `git --git-dir <private> --work-tree
 * <working folder>`. It works in folders that are not git repositories and never reads or
 * writes the folder's own `.git` (git never adds a `.git`); `.gitignore` files are respected.
 * Content-addressed and deduplicated, and its index caches what each file's stat was, so an
 * unchanged file costs a `stat` per snapshot and nothing is stored twice.
 */
import { spawn } from 'node:child_process';
import { lstat, mkdir, writeFile } from 'node:fs/promises';
import { join, relative, isAbsolute } from 'node:path';

/** Files bigger than this are left out of checkpoints (and left alone by a rewind). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** One snapshot: the tree git wrote, and the files left out for their size. */
export interface Snapshot {
  tree: string;
  skipped: string[];
}

/** A path that differs between two trees: `A` only in the second, `D` only in the first, `M` changed (or its type). */
export interface TreeChange {
  status: 'A' | 'D' | 'M';
  path: string;
}

export class GitFailed extends Error {}

/** Whether `git` can be run here; the message says why not. */
export async function gitAvailable(): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    await runGit(['--version'], { cwd: process.cwd() });
    return { ok: true };
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return { ok: false, reason: missing ? 'git is not installed (checkpoints use its object store)' : `git does not run: ${(error as Error).message}` };
  }
}

/** The environment git runs in: none of the user's GIT_* settings or config files, so nothing of theirs applies or is touched. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('GIT_')) env[name] = value;
  return { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_LITERAL_PATHSPECS: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
}

function runGit(args: readonly string[], options: { cwd: string; input?: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd, env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new GitFailed(`git ${subcommand(args)} failed: ${Buffer.concat(err).toString('utf8').trim() || `exit ${code}`}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Whether a path of the working folder is behind a link (one `lstat` per folder, remembered). */
class LinkedFolders {
  readonly #root: string;
  readonly #links = new Map<string, Promise<boolean>>();

  constructor(root: string) {
    this.#root = root;
  }

  async below(path: string): Promise<boolean> {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      let link = this.#links.get(folder);
      if (link === undefined) {
        link = lstat(join(this.#root, folder)).then(
          (info) => info.isSymbolicLink(),
          () => false,
        );
        this.#links.set(folder, link);
      }
      if (await link) return true;
    }
    return false;
  }
}

/** The git command of `args` (`update-index`), past the options and the values of `-c`. */
function subcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-c') i++;
    else if (!args[i]!.startsWith('-')) return args[i]!;
  }
  return '';
}

function nulList(text: string): string[] {
  return text.split('\0').filter((item) => item !== '');
}

/** The private repository of one session's checkpoints, over one working folder. */
export class GitStore {
  readonly gitDir: string;
  readonly workTree: string;
  /** The tree the index was last written as, while nothing else has changed the index: an unchanged folder costs one `ls-files`. */
  #lastTree: string | undefined;

  constructor(gitDir: string, workTree: string) {
    this.gitDir = gitDir;
    this.workTree = workTree;
  }

  git(args: readonly string[], input?: string): Promise<string> {
    const base = [`--git-dir=${this.gitDir}`, `--work-tree=${this.workTree}`, '-c', 'core.quotepath=false', '-c', 'core.autocrlf=false'];
    return runGit([...base, ...args], { cwd: this.workTree, ...(input === undefined ? {} : { input }) });
  }

  /**
   * Creates the repository if it is not there: owner-only files (`--shared=0600`), no hooks,
   * no automatic gc (panto prunes it), and `exclude` (absolute paths inside the working
   * folder that are panto's own, e.g. its session files) left out of every snapshot.
   */
  async init(exclude: readonly string[]): Promise<void> {
    await mkdir(this.gitDir, { recursive: true, mode: 0o700 });
    await runGit(['init', '--quiet', '--bare', '--shared=0600', '--template=', this.gitDir], { cwd: this.workTree });
    for (const [key, value] of [
      ['core.bare', 'false'],
      ['gc.auto', '0'],
      ['core.untrackedCache', 'true'],
      ['core.fsmonitor', 'false'],
    ] as const) {
      await this.git(['config', key, value]);
    }
    const patterns = exclude.flatMap((path) => {
      const inside = relative(this.workTree, path);
      return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? [] : [`/${inside.replaceAll('\\', '/')}`];
    });
    await mkdir(join(this.gitDir, 'info'), { recursive: true, mode: 0o700 });
    await writeFile(join(this.gitDir, 'info', 'exclude'), patterns.map((pattern) => `${pattern}\n`).join(''), { mode: 0o600 });
  }

  /**
   * Records the working folder as it is now: the files changed since the last snapshot (by
   * their stat, as git's index has it) are hashed into the store, the rest cost nothing.
   * Files over {@link MAX_FILE_BYTES} are left out and listed. `maxFiles`: refuses (throws)
   * when more files than that would be added at once (a home folder, say).
   */
  async snapshot(maxFiles: number): Promise<Snapshot> {
    const listed = nulList(await this.git(['ls-files', '-z', '--others', '--modified', '--deleted', '--exclude-standard']));
    const candidates = [...new Set(listed)].filter((path) => !path.endsWith('/'));
    if (candidates.length > maxFiles) {
      throw new GitFailed(`${candidates.length} files changed or new at once, more than the ${maxFiles} checkpoints take`);
    }
    const update: string[] = [];
    const gone: string[] = [];
    const drop: string[] = [];
    const skipped: string[] = [];
    const linked = new LinkedFolders(this.workTree);
    await Promise.all(
      candidates.map(async (path) => {
        // A path whose type changed is no longer what the index has: a folder now (its files
        // are listed on their own), or behind a link now (`d/a.txt` once `d` is a link).
        const stats = (await linked.below(path)) ? undefined : await lstat(join(this.workTree, path)).catch(() => undefined);
        if (stats === undefined || stats.isDirectory()) gone.push(path);
        else if (stats.isFile() && stats.size > MAX_FILE_BYTES) {
          skipped.push(path);
          drop.push(path);
        } else update.push(path);
      }),
    );
    if (gone.length + drop.length > 0) await this.git(['update-index', '--force-remove', '-z', '--stdin'], `${[...gone, ...drop].join('\0')}\0`);
    // --replace: a file or link where the index has a folder takes its entries' place, instead
    // of failing with "'d' appears as both a file and as a directory" (and every checkpoint after).
    if (update.length > 0) await this.git(['update-index', '--add', '--replace', '-z', '--stdin'], `${update.join('\0')}\0`);
    // A big untracked file is listed every time but changes nothing in the index.
    const tree = update.length + gone.length === 0 && this.#lastTree !== undefined ? this.#lastTree : (await this.git(['write-tree'])).trim();
    this.#lastTree = tree;
    // A big file stays untracked, so every snapshot lists it again: `skipped` is complete.
    return { tree, skipped: skipped.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
  }

  /** What differs from tree `from` to tree `to`. */
  async changes(from: string, to: string): Promise<TreeChange[]> {
    if (from === to) return [];
    const fields = nulList(await this.git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from, to]));
    const changes: TreeChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const status = fields[i]!;
      changes.push({ status: status === 'A' ? 'A' : status === 'D' ? 'D' : 'M', path: fields[i + 1]! });
    }
    return changes;
  }

  /** Writes `paths` of `tree` into the working folder (and the index), modes included. */
  async checkout(tree: string, paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    this.#lastTree = undefined;
    await this.git(['checkout', '--pathspec-from-file=-', '--pathspec-file-nul', tree], `${paths.join('\0')}\0`);
  }

  /** Forgets what the index was written as (another command changed it). */
  indexChanged(): void {
    this.#lastTree = undefined;
  }

  /**
   * Drops every object that none of `keep` needs: the trees are made the only refs
   * (`refs/panto/<n>`), then git prunes. Until then nothing is pruned (no automatic gc),
   * so a snapshot writes no ref.
   */
  async prune(keep: ReadonlyMap<string, string>): Promise<void> {
    const existing = nulList(await this.git(['for-each-ref', '--format=%(refname)%00', 'refs/panto/']))
      .map((ref) => ref.trim())
      .filter((ref) => ref !== '');
    const commands = [
      ...existing.filter((ref) => !keep.has(ref.slice('refs/panto/'.length))).map((ref) => `delete ${ref}`),
      ...[...keep].map(([name, tree]) => `update refs/panto/${name} ${tree}`),
    ];
    if (commands.length > 0) await this.git(['update-ref', '--stdin'], `${commands.join('\n')}\n`);
    await this.git(['gc', '--quiet', '--prune=now']);
  }

  /** The bytes the store takes (loose objects and packs). */
  async size(): Promise<number> {
    const out = await this.git(['count-objects', '-v']);
    const kib = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
    return (kib('size') + kib('size-pack')) * 1024;
  }
}
