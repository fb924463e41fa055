/**
 * What a folder would run of its own if trusted: the extension files of `.panto/extensions/`
 * and the MCP servers of `.panto/mcp.json` (a stdio server is a command panto starts; an HTTP
 * one is sent the headers the file names, with `${VAR}`s of the user's environment in them).
 */
import { displayURL, parseMCPConfig } from '@panto/core/mcp';
import { readFile } from 'node:fs/promises';
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
  if (places.extensionsDir !== places.userExtensionsDir) {
    for (const file of await extensionFilesIn(places.extensionsDir)) lines.push(`extension ${places.show(file)}`);
  }
  if (places.mcpFile !== places.userMCPFile) {
    let text: string | undefined;
    try {
      text = await readFile(places.mcpFile, 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      // Not expanded: a `${TOKEN}` in a command stays a name, in the question and in the trust file.
      for (const server of parseMCPConfig(text, places.show(places.mcpFile)).servers) {
        const target = server.type === 'stdio' ? [server.command, ...server.args].join(' ') : displayURL(server.url);
        lines.push(`MCP server "${server.name}" (${places.show(places.mcpFile)}): ${target}`);
      }
    }
  }
  return lines;
}
