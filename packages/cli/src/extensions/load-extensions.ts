/**
 * Finding and importing extension modules — the CLI's part of hosting extensions; what
 * they register and how it reaches the agent is `ExtensionHost`'s (@panto/core).
 */
import { errorMessage, ExtensionError, type ExtensionHost, type ExtensionSource } from '@panto/core';
import { spawnSync } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { displayPath } from '../user-paths.js';

/** The files the CLI loads as extensions. */
export const EXTENSION_FILE_TYPES: readonly string[] = ['.ts', '.js', '.mjs'];

/** An extension file to load, or a place that could not be read. */
export interface ExtensionCandidate {
  source: ExtensionSource;
  /** Absolute path of the file. */
  file: string;
  /** Why it cannot be loaded before even trying (a missing `--extension` file). */
  problem?: string;
}

export interface ExtensionPlaces {
  /** `$PANTO_HOME/extensions`. */
  globalDir: string;
  /** `<working folder>/.panto/extensions`; absent when the folder is not trusted. */
  projectDir?: string;
  /** `--extension` values, as given. */
  flags: readonly string[];
  cwd: string;
  /** The user's home, to show `~/…` paths. */
  home: string;
}

/**
 * The extensions to load, in order: `$PANTO_HOME/extensions/`, then `.panto/extensions/` of
 * the working folder, then each `--extension`. In a folder, every `.ts`, `.js` and `.mjs`
 * file directly in it, and `index.{ts,js,mjs}` of each subfolder, by name. A folder that
 * does not exist is not a problem; a `--extension` that does not exist is.
 */
export async function findExtensions(places: ExtensionPlaces): Promise<ExtensionCandidate[]> {
  const show = (file: string) => displayPath(file, places.cwd, places.home);
  const candidates: ExtensionCandidate[] = [];
  // Run in the home folder, the project's .panto is the global one: load it once.
  const dirs = places.projectDir === undefined || places.projectDir === places.globalDir ? [places.globalDir] : [places.globalDir, places.projectDir];
  for (const dir of dirs) {
    const origin = show(dir);
    for (const file of await extensionFilesIn(dir)) candidates.push({ source: { path: show(file), origin }, file });
  }
  for (const flag of places.flags) {
    const path = resolve(places.cwd, flag);
    if (candidates.some((candidate) => candidate.file === path)) continue;
    const file = await entryOf(path);
    if (file !== undefined && candidates.some((candidate) => candidate.file === file)) continue;
    const source = { path: show(path), origin: '--extension' };
    if (file === undefined)
      candidates.push({
        source,
        file: path,
        problem: `no such extension file or folder (with an index.ts, .js or .mjs): ${flag}`,
      });
    else if (!EXTENSION_FILE_TYPES.includes(extname(file))) candidates.push({ source, file, problem: `not a .ts, .js or .mjs file: ${flag}` });
    else candidates.push({ source: { ...source, path: show(file) }, file });
  }
  return candidates;
}

/**
 * Imports each candidate and hands it to the host; one that fails is recorded (with its
 * file and error) and the rest still load. Files are imported through tsx, which compiles
 * TypeScript and takes ES modules and CommonJS alike wherever the file is (no package.json
 * needed).
 */
export async function loadExtensions(host: ExtensionHost, candidates: readonly ExtensionCandidate[]): Promise<void> {
  for (const candidate of candidates) {
    if (candidate.problem !== undefined) {
      host.fail(candidate.source, new ExtensionError(candidate.problem));
      continue;
    }
    let exports: unknown;
    try {
      exports = unwrapDefault(await importModule(candidate.file));
    } catch (error) {
      const where = error instanceof SyntaxError ? syntaxErrorLine(candidate.file) : undefined;
      const message = `could not be imported: ${flattenLines(errorMessage(error))}${where === undefined ? '' : ` (at ${where})`}`;
      host.fail(candidate.source, new ExtensionError(message, { cause: error }));
      continue;
    }
    await host.load(candidate.source, exports);
  }
}

type ScopedImport = (specifier: string, parentURL: string) => Promise<unknown>;
let tsxImport: Promise<ScopedImport> | undefined;

/**
 * Every extension goes through tsx, `.mjs` too: Node's own SyntaxError for an ES module
 * names no file or line, esbuild's does (`file.mjs:3:14: ERROR: …`).
 */
async function importModule(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  // One namespaced registration for every extension: tsx compiles only what is imported
  // through it, and ignores the working folder's tsconfig.json (an extension in
  // ~/.panto/extensions should not compile differently from one project to the next).
  tsxImport ??= import('tsx/esm/api').then(({ register }) => {
    const api = register({ namespace: 'panto-extensions', tsconfig: false });
    return (specifier: string, parentURL: string) => api.import(specifier, parentURL) as Promise<unknown>;
  });
  return (await tsxImport)(url, import.meta.url);
}

/**
 * The module's exports with `default` the extension: a TypeScript or ESM file compiled to
 * CommonJS (outside an ESM package) arrives as `{ default: { default: fn } }`.
 */
function unwrapDefault(exports: unknown): unknown {
  const outer = (exports as { default?: unknown } | null)?.default;
  if (typeof outer === 'object' && outer !== null && typeof (outer as { default?: unknown }).default === 'function') {
    return { default: (outer as { default: unknown }).default };
  }
  return exports;
}

/** The extension files of a folder, by name: its `.ts`, `.js` and `.mjs` files and each subfolder's index; none when it does not exist. */
export async function extensionFilesIn(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    // Missing or unreadable: a folder with no extensions (the caller says where it looked).
    return [];
  }
  const files: string[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const file = await entryOf(join(dir, name));
    if (file !== undefined && EXTENSION_FILE_TYPES.includes(extname(file)) && !name.endsWith('.d.ts')) files.push(file);
  }
  return files;
}

/** The file itself, or a folder's `index.ts` / `index.js` / `index.mjs`; undefined when neither exists. */
async function entryOf(path: string): Promise<string | undefined> {
  // Missing or unreadable: not an extension (the caller says which paths held none).
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return undefined;
  if (info.isFile()) return path;
  if (!info.isDirectory()) return undefined;
  for (const type of EXTENSION_FILE_TYPES) {
    const index = join(path, `index${type}`);
    // Missing: try the next kind of index.
    if ((await stat(index).catch(() => undefined))?.isFile()) return index;
  }
  return undefined;
}

/**
 * Where a file's syntax error is, as `file:line`: Node's SyntaxError for an ES module that
 * tsx left to Node (plain `.mjs`) names neither, but `node --check` prints it.
 */
function syntaxErrorLine(file: string): string | undefined {
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 });
  const first = check.stderr?.split('\n')[0] ?? '';
  return /^.+:\d+$/.test(first) ? first : undefined;
}

/** The non-empty lines of `text`, trimmed, joined with spaces. */
function flattenLines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}
