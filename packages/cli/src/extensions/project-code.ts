/**
 * What a folder would run of its own if trusted: the extension files of `.panto/extensions/`
 * and the MCP servers of `.panto/mcp.json` (a stdio server is a command panto starts; an HTTP
 * one is sent the headers the file names, with `${VAR}`s of the user's environment in them).
 */
import { displayURL, parseMCPConfig, type MCPServerConfig } from '@panto/core/mcp';
import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { extensionFilesIn } from './load-extensions.js';

export interface ProjectPlaces {
  /** `<folder>/.panto/extensions`. */
  extensionsDir: string;
  /** `<folder>/.panto/mcp.json`. */
  mcpFile: string;
  /** `$PANTO_HOME/extensions` and `$PANTO_HOME/mcp.json`: when the folder's are these (panto run in the home folder), they are the user's own. */
  userExtensionsDir: string;
  userMCPFile: string;
  show: (path: string) => string;
}

/**
 * The folder's own code, one line each ("`.panto/extensions/lint.ts`", "`MCP server "db": node
 * db.js --port 1`"), in a stable order; none when it has none. These lines are what the trust
 * question names and what a trust decision remembers.
 */
export async function describeProjectCode(places: ProjectPlaces): Promise<string[]> {
  const lines: string[] = [];
  for (const file of await projectExtensions(places)) lines.push(`extension ${places.show(file)}`);
  for (const server of await projectServers(places)) {
    const target = server.type === 'stdio' ? [server.command, ...server.args].join(' ') : displayURL(server.url);
    lines.push(`MCP server "${server.name}" (${places.show(places.mcpFile)}): ${target}`);
  }
  return lines;
}

/**
 * The files inside `folder` that the folder's code runs, by their path relative to it, with the
 * SHA-256 of their content: the extension files, and the files a stdio MCP server's command
 * line names (`node tools/mcp.mjs` → `tools/mcp.mjs`; links followed, only those inside the
 * folder). What they import in turn is not followed. A trust decision remembers these, so that
 * a file changed since — by a sandboxed command, say — asks again before it runs.
 */
export async function projectCodeFiles(places: ProjectPlaces, folder: string): Promise<Record<string, string>> {
  const root = await realpath(folder).catch(() => folder);
  const candidates = [...(await projectExtensions(places))];
  for (const server of await projectServers(places)) {
    if (server.type !== 'stdio') continue;
    const base = resolve(folder, server.cwd ?? '.');
    for (const word of [server.command, ...server.args]) {
      const value = word.slice(word.indexOf('=') + 1);
      if (word === server.command && !value.includes('/')) continue;
      if (value !== '' && !value.startsWith('-')) candidates.push(resolve(base, value));
    }
  }
  const files: Record<string, string> = {};
  for (const candidate of candidates) {
    // A word that names no file (a flag's value, a package name) is not a file the server runs.
    const real = await realpath(candidate).catch(() => undefined);
    if (real === undefined || !(await stat(real)).isFile()) continue;
    const inside = relative(root, real);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) continue;
    files[inside] = createHash('sha256')
      .update(await readFile(real))
      .digest('hex');
  }
  return files;
}

async function projectExtensions(places: ProjectPlaces): Promise<string[]> {
  return places.extensionsDir === places.userExtensionsDir ? [] : extensionFilesIn(places.extensionsDir);
}

async function projectServers(places: ProjectPlaces): Promise<MCPServerConfig[]> {
  if (places.mcpFile === places.userMCPFile) return [];
  let text: string;
  try {
    text = await readFile(places.mcpFile, 'utf8');
  } catch {
    // No .panto/mcp.json (or unreadable): no server of the folder's.
    return [];
  }
  // Not expanded: a `${TOKEN}` in a command stays a name, in the question and in the trust file.
  return parseMCPConfig(text, places.show(places.mcpFile)).servers;
}
