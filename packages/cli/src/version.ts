import { readFileSync } from 'node:fs';

/** The CLI's version, as its package.json says: what `panto --version`, the banner and MCP servers are told. */
export const CLI_VERSION = readVersion();

function readVersion(): string {
  try {
    const json = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof json.version === 'string' ? json.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
