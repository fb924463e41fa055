/**
 * The user's sandbox settings, in `$PANTO_HOME/settings.json`:
 *
 * ```json
 * { "sandbox": { "allowedDomains": ["registry.npmjs.org", "*.github.com"] } }
 * ```
 *
 * Only the user's own file counts: a project cannot widen the sandbox its commands run in.
 */
import { readFile } from 'node:fs/promises';

export interface SandboxSettings {
  /** The domains sandboxed commands may reach through panto's proxy (none: no network). */
  allowedDomains: string[];
}

/** A domain name, a `*.` wildcard below one, or an IP address. */
const DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$|^[0-9a-f:.]+$/i;

/** Reads the settings; a missing file is the defaults, a bad one the defaults and a problem to show (never throws). */
export async function readSandboxSettings(file: string, show: string): Promise<{ settings: SandboxSettings; problems: string[] }> {
  const settings: SandboxSettings = { allowedDomains: [] };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { settings, problems: [] };
    return { settings, problems: [`${show}: cannot be read: ${(error as Error).message}`] };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { settings, problems: [`${show}: not JSON: ${(error as Error).message}`] };
  }
  const sandbox = (json as { sandbox?: unknown } | null)?.sandbox;
  if (sandbox === undefined) return { settings, problems: [] };
  const domains = (sandbox as { allowedDomains?: unknown } | null)?.allowedDomains;
  if (domains === undefined) return { settings, problems: [] };
  if (!Array.isArray(domains)) return { settings, problems: [`${show}: sandbox.allowedDomains must be an array of domain names`] };
  const problems: string[] = [];
  for (const domain of domains) {
    if (typeof domain === 'string' && DOMAIN.test(domain)) settings.allowedDomains.push(domain.toLowerCase());
    else problems.push(`${show}: sandbox.allowedDomains: ${JSON.stringify(domain)} is not a domain name (example.com, *.example.com)`);
  }
  return { settings, problems };
}
