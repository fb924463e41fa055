/**
 * A working folder with code of its own, for the tests of folder trust: its
 * `.panto/extensions/` holds an extension and its `.panto/mcp.json` a server, each of which
 * leaves a marker file in the folder when it runs at all.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const EXTENSION_MARKER = 'extension-was-loaded';
export const MCP_MARKER = 'mcp-server-was-started';

/** Gives `cwd` its own extension (`.panto/extensions/marker.ts`) and MCP server (`marker`). */
export async function projectWithCode(cwd: string): Promise<void> {
  await mkdir(join(cwd, '.panto', 'extensions'), { recursive: true });
  await writeFile(
    join(cwd, '.panto', 'extensions', 'marker.ts'),
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(cwd, EXTENSION_MARKER))}, 'loaded');\nexport default () => {};\n`,
  );
  const server = `require('fs').writeFileSync(${JSON.stringify(join(cwd, MCP_MARKER))}, 'started')`;
  await writeFile(join(cwd, '.panto', 'mcp.json'), JSON.stringify({ mcpServers: { marker: { command: process.execPath, args: ['-e', server] } } }));
}

/** The markers the folder's code left: what of it ran. */
export const markers = (cwd: string): string[] => [EXTENSION_MARKER, MCP_MARKER].filter((name) => existsSync(join(cwd, name)));
