import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { protectedPaths } from '../sandbox/protected-paths.js';

/** The file name panto reads instructions from, as pi, Codex and Claude Code (through AGENTS.md) do. */
export const CONTEXT_FILE_NAME = 'AGENTS.md';

/** A longer file is cut (with a note in the prompt) so one file cannot fill the context. */
export const MAX_CONTEXT_FILE_BYTES = 64 * 1024;

export interface ContextFile {
  /** Absolute path. */
  path: string;
  text: string;
  /** Whether the text was cut at {@link MAX_CONTEXT_FILE_BYTES}. */
  truncated: boolean;
}

/**
 * The context files of a working folder, in the order they go into the system prompt (most
 * general first, so the nearest one has the last word):
 * 1. `$PANTO_HOME/AGENTS.md` (the user's own instructions, for every folder);
 * 2. `AGENTS.md` in the repository root (the nearest folder up from `cwd` holding `.git`),
 *    then in each folder below it down to `cwd`. Outside a repository only `cwd` is read.
 *
 * Missing, empty and unreadable files are skipped (unreadable ones are returned in
 * `problems`, to warn about). The text goes to the model's provider, so a repository's file is
 * read as the `read` tool would without asking: a link is followed only to a file inside the
 * repository (the working folder outside one) that is not a secret the sandbox hides
 * (`protectedPaths`); a link elsewhere — `/proc/self/environ`, `~/.ssh/id_rsa` — is skipped
 * and named in `problems`. Nothing is read under `/proc`, `/sys` or `/dev`, `$PANTO_HOME`'s
 * file included.
 *
 * @example
 * const { files } = await findContextFiles({ cwd: '/home/ada/app/pkg', pantoHome: '/home/ada/.panto', home: '/home/ada', env: process.env });
 */
export async function findContextFiles(options: {
  cwd: string;
  pantoHome: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<{ files: ContextFile[]; problems: string[] }> {
  const folders = await projectFolders(options.cwd);
  const repository = await realpath(folders[0] ?? options.cwd).catch(() => options.cwd);
  const hidden = protectedPaths({
    cwd: await realpath(options.cwd).catch(() => options.cwd),
    home: options.home,
    dataDir: options.pantoHome,
    env: options.env,
  });
  const userFile = join(options.pantoHome, CONTEXT_FILE_NAME);
  const candidates = [userFile, ...folders.map((folder) => join(folder, CONTEXT_FILE_NAME))];
  const files: ContextFile[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const path of candidates) {
    if (seen.has(path)) continue;
    seen.add(path);
    let bytes: Buffer;
    try {
      const real = await realpath(path);
      const refused = refusal(real, path === userFile ? undefined : repository, (target) => hidden.some((entry) => within(target, entry.path)));
      if (refused !== undefined) {
        problems.push(`${path} is a link to ${real}, ${refused}: not read`);
        continue;
      }
      if (!(await stat(real)).isFile()) continue;
      bytes = await readFile(real);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') problems.push(`cannot read ${path}: ${code ?? String(error)}`);
      continue;
    }
    const truncated = bytes.length > MAX_CONTEXT_FILE_BYTES;
    const text = (truncated ? bytes.subarray(0, MAX_CONTEXT_FILE_BYTES) : bytes).toString('utf8').trim();
    if (text === '') continue;
    files.push({ path, text, truncated });
  }
  return { files, problems };
}

/**
 * The system prompt with the context files appended, each under its path. Without files it
 * is `base` unchanged, so a folder without AGENTS.md keeps the prompt it always had.
 */
export function withContextFiles(base: string, files: readonly ContextFile[]): string {
  if (files.length === 0) return base;
  const sections = files.map(
    (file) => `## ${file.path}\n\n${file.text}${file.truncated ? `\n\n[cut at ${MAX_CONTEXT_FILE_BYTES / 1024} KB; read the file for the rest]` : ''}`,
  );
  return [
    base,
    '',
    '# Instructions from AGENTS.md files',
    '',
    'The user keeps these instructions for this folder. Follow them; where two disagree, the later (nearer) one wins.',
    '',
    sections.join('\n\n'),
  ].join('\n');
}

/** Why a context file that lands at `real` is not read (undefined: it is read). */
function refusal(real: string, repository: string | undefined, isSecret: (path: string) => boolean): string | undefined {
  if (['/proc', '/sys', '/dev'].some((system) => within(real, system))) return 'a file of the system';
  if (repository === undefined) return undefined;
  if (!within(real, repository)) return 'outside the repository';
  if (isSecret(real)) return 'a secret the sandbox hides';
  return undefined;
}

function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** The repository root down to `cwd` (just `cwd` outside a repository), root first. */
async function projectFolders(cwd: string): Promise<string[]> {
  const chain: string[] = [];
  for (let folder = cwd; ; folder = dirname(folder)) {
    chain.push(folder);
    if (await exists(join(folder, '.git'))) return chain.reverse();
    if (dirname(folder) === folder) return [cwd];
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    // Missing or unreadable: no context file there.
    return false;
  }
}
