import { createHash } from 'node:crypto';
import { homedir as osHomedir } from 'node:os';
import { join, resolve } from 'node:path';
import { expandPath } from '../user-paths.js';

/** Folder names longer than this get a hash in place of their middle (file systems cap names at 255 bytes). */
const MAX_FOLDER_NAME = 200;

/**
 * Where panto keeps its data: `$PANTO_HOME`, else `~/.panto`. A leading `~` in
 * `PANTO_HOME` is expanded; a relative one resolves against `cwd`.
 */
export function pantoHome(env: Readonly<Record<string, string | undefined>>, cwd: string, homedir: string = osHomedir()): string {
  const value = env.PANTO_HOME;
  if (value === undefined || value === '') return join(homedir, '.panto');
  return expandPath(value, cwd, homedir);
}

/** The folder holding the sessions of `cwd`: `$PANTO_HOME/sessions/<sessionFolderName(cwd)>`. */
export function sessionDirFor(cwd: string, env: Readonly<Record<string, string | undefined>>, homedir?: string): string {
  return join(pantoHome(env, cwd, homedir), 'sessions', sessionFolderName(cwd));
}

/**
 * The input history file of the working folder `cwd`: `$PANTO_HOME/history/<folder name>.jsonl`
 * (the folder name as for sessions).
 */
export function historyFileFor(dataDir: string, cwd: string): string {
  return join(dataDir, 'history', `${sessionFolderName(cwd)}.jsonl`);
}

/**
 * Turns a working folder into one folder name, readably and injectively (two folders never
 * share a name):
 *
 * - the leading `/` is dropped and every other `/` becomes `-`;
 * - `%` and a literal `-` are escaped as `%25` and `%2D`, so a `-` always means `/`;
 * - characters that are unsafe in a file name on some system (`\ : * ? " < > |`, control
 *   characters) become `%XX` (their UTF-8 bytes);
 * - the root folder `/` is `-`;
 * - a name that would be longer than 200 characters keeps its first 150 and ends in
 *   `%h` and 16 hex digits of the SHA-256 of the folder path (`%h` never occurs otherwise).
 *
 * @example
 * sessionFolderName('/home/ada/my-app'); // 'home-ada-my%2Dapp'
 */
export function sessionFolderName(cwd: string): string {
  const normalised = resolve(cwd);
  if (normalised === '/') return '-';
  const relative = normalised.startsWith('/') ? normalised.slice(1) : normalised;
  let name = '';
  for (const char of relative) {
    if (char === '/') name += '-';
    else if (isUnsafe(char)) name += percentEncode(char);
    else name += char;
  }
  if (name.length <= MAX_FOLDER_NAME) return name;
  let cut = 150;
  // Do not split a %XX escape.
  const lastPercent = name.lastIndexOf('%', cut - 1);
  if (lastPercent >= 0 && lastPercent > cut - 3) cut = lastPercent;
  const hash = createHash('sha256').update(normalised).digest('hex').slice(0, 16);
  return `${name.slice(0, cut)}%h${hash}`;
}

/**
 * The working folder a {@link sessionFolderName} came from, or undefined for a name that
 * was shortened with a hash (or is not such a name).
 */
export function folderFromSessionFolderName(name: string): string | undefined {
  if (name === '-') return '/';
  if (name.includes('%h')) return undefined;
  const bytes: number[] = [];
  const out: string[] = [];
  const flush = () => {
    if (bytes.length > 0) out.push(Buffer.from(bytes).toString('utf8'));
    bytes.length = 0;
  };
  for (let i = 0; i < name.length; i++) {
    const char = name[i]!;
    if (char === '%') {
      const hex = name.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
      continue;
    }
    flush();
    out.push(char === '-' ? '/' : char);
  }
  flush();
  return `/${out.join('')}`;
}

function isUnsafe(char: string): boolean {
  if (char === '%' || char === '-') return true;
  if ('\\:*?"<>|'.includes(char)) return true;
  const code = char.codePointAt(0)!;
  return code < 0x20 || code === 0x7f;
}

function percentEncode(char: string): string {
  let out = '';
  for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}
