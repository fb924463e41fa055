/**
 * MCP server configuration in the shape other agents use (`mcp.json`):
 *
 * ```json
 * { "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {} },
 *     "docs":  { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer …" } } } }
 * ```
 */

/** A server panto starts and talks to over its stdin and stdout. */
export interface MCPStdioServerConfig {
  type: 'stdio';
  name: string;
  command: string;
  args: string[];
  /** Added to the few variables every server gets (PATH, HOME, …; see docs/mcp.md). */
  env: { [name: string]: string };
  /** The folder it starts in, when the config names one. */
  cwd?: string;
  /** The file the server was configured in, for messages. */
  source: string;
}

/** A server reached over Streamable HTTP. */
export interface MCPHTTPServerConfig {
  type: 'http';
  name: string;
  url: string;
  /** Sent with every request; may hold secrets, so never shown or logged. */
  headers: { [name: string]: string };
  source: string;
}

export type MCPServerConfig = MCPStdioServerConfig | MCPHTTPServerConfig;

export interface ParsedMCPConfig {
  servers: MCPServerConfig[];
  /** What was wrong, one line each, naming the source and the server; those servers are left out. */
  problems: string[];
}

export interface ParseMCPConfigOptions {
  /** The transports the host can use (default both); the service has no stdio. */
  transports?: readonly MCPServerConfig['type'][];
  /**
   * Expands `${NAME}` and `${NAME:-default}` in commands, arguments, env values, URLs and
   * headers from these variables (the CLI: its environment, so a config file need not
   * hold a token). A reference to an unset variable without a default leaves the server
   * out. Without it, nothing is expanded.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Reads an `mcp.json` (its text, or the parsed value). Never throws: a file that is not
 * JSON or not `{ "mcpServers": { … } }` is one problem and no servers; a bad server is a
 * problem and is left out, the others are kept. `"disabled": true` leaves a server out
 * quietly.
 *
 * @example
 * const { servers, problems } = parseMCPConfig(await readFile('.panto/mcp.json', 'utf8'), '.panto/mcp.json');
 */
export function parseMCPConfig(json: unknown, source: string, options: ParseMCPConfigOptions = {}): ParsedMCPConfig {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (error) {
      return {
        servers: [],
        problems: [`${source}: not JSON: ${error instanceof Error ? error.message : String(error)}`],
      };
    }
  }
  const root = record(value);
  const entries = root === undefined ? undefined : record(root.mcpServers);
  if (entries === undefined) {
    return {
      servers: [],
      problems: [`${source}: expected { "mcpServers": { "<name>": { "command", "args", "env" } | { "url", "headers" } } }`],
    };
  }
  const servers: MCPServerConfig[] = [];
  const problems: string[] = [];
  const allowed = options.transports ?? ['stdio', 'http'];
  for (const [name, entry] of Object.entries(entries)) {
    const problem = (message: string) => problems.push(`${source}: server "${name}": ${message}`);
    const server = record(entry);
    if (name.trim() === '') {
      problems.push(`${source}: a server has an empty name`);
      continue;
    }
    if (server === undefined) {
      problem('expected an object');
      continue;
    }
    if (server.disabled === true) continue;
    const missing = new Set<string>();
    const parsed = parseServer(name, options.env === undefined ? server : expand(server, options.env, missing), source);
    if (missing.size > 0) {
      problem(`uses ${[...missing].map((variable) => `\${${variable}}`).join(', ')}, which ${missing.size === 1 ? 'is' : 'are'} not set`);
      continue;
    }
    if (typeof parsed === 'string') {
      problem(parsed);
      continue;
    }
    if (!allowed.includes(parsed.type)) {
      problem(
        parsed.type === 'stdio' ? 'stdio servers (command) cannot run here; give a Streamable HTTP url' : `${parsed.type} servers are not supported here`,
      );
      continue;
    }
    servers.push(parsed);
  }
  return { servers, problems };
}

/**
 * The servers of several config files, later files first: a server named in a later file
 * replaces one of the same name in an earlier file (a project's `.panto/mcp.json` over
 * `~/.panto/mcp.json`).
 */
export function mergeMCPConfigs(...configs: readonly ParsedMCPConfig[]): ParsedMCPConfig {
  const servers = new Map<string, MCPServerConfig>();
  const problems: string[] = [];
  for (const config of configs) {
    for (const server of config.servers) servers.set(server.name, server);
    problems.push(...config.problems);
  }
  return { servers: [...servers.values()], problems };
}

/** A server's URL without what may be secret in it (credentials, query, fragment), for messages. */
export function displayURL(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

function parseServer(name: string, server: { [key: string]: unknown }, source: string): MCPServerConfig | string {
  const type = server.type;
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'streamable-http' && type !== 'streamableHttp') {
    return type === 'sse'
      ? "the SSE transport is deprecated and not supported; use the server's Streamable HTTP endpoint"
      : `unknown type ${JSON.stringify(type)} (expected stdio or http)`;
  }
  const hasCommand = server.command !== undefined;
  const hasURL = server.url !== undefined;
  if (hasCommand && hasURL) return 'give either command (stdio) or url (Streamable HTTP), not both';
  if (hasURL || (type !== undefined && type !== 'stdio')) {
    if (typeof server.url !== 'string') return 'url must be a string';
    let url: URL;
    try {
      url = new URL(server.url);
    } catch {
      return 'url is not a URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `url must be http(s), not ${url.protocol}`;
    const headers = stringMap(server.headers, 'headers');
    if (typeof headers === 'string') return headers;
    return { type: 'http', name, url: server.url, headers, source };
  }
  if (!hasCommand) return 'needs a command (stdio) or a url (Streamable HTTP)';
  if (typeof server.command !== 'string' || server.command.trim() === '') return 'command must be a non-empty string';
  const args = server.args ?? [];
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) return 'args must be an array of strings';
  const env = stringMap(server.env, 'env');
  if (typeof env === 'string') return env;
  if (server.cwd !== undefined && typeof server.cwd !== 'string') return 'cwd must be a string';
  return {
    type: 'stdio',
    name,
    command: server.command,
    args: args as string[],
    env,
    ...(typeof server.cwd === 'string' ? { cwd: server.cwd } : {}),
    source,
  };
}

/** The server's entry with `${NAME}` / `${NAME:-default}` expanded in its strings; unset names go into `missing`. */
function expand(server: { [key: string]: unknown }, env: Readonly<Record<string, string | undefined>>, missing: Set<string>): { [key: string]: unknown } {
  const one = (value: unknown): unknown =>
    typeof value !== 'string'
      ? value
      : value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, variable: string, fallback: string | undefined) => {
          const found = env[variable];
          if (found !== undefined && found !== '') return found;
          if (fallback !== undefined) return fallback;
          missing.add(variable);
          return '';
        });
  const values = (value: unknown): unknown => {
    const map = record(value);
    return map === undefined ? value : Object.fromEntries(Object.entries(map).map(([key, entry]) => [key, one(entry)]));
  };
  return {
    ...server,
    command: one(server.command),
    args: Array.isArray(server.args) ? server.args.map(one) : server.args,
    env: values(server.env),
    cwd: one(server.cwd),
    url: one(server.url),
    headers: values(server.headers),
  };
}

function stringMap(value: unknown, field: string): { [name: string]: string } | string {
  if (value === undefined) return {};
  const map = record(value);
  if (map === undefined || !Object.values(map).every((entry) => typeof entry === 'string')) return `${field} must be an object of strings`;
  return map as { [name: string]: string };
}

function record(value: unknown): { [key: string]: unknown } | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { [key: string]: unknown }) : undefined;
}
