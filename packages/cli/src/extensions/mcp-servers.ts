/** The CLI's MCP servers: where their config is read from, and how their tools reach the agent. */
import type { ToolRegistry } from '@panto/core';
import { MCPServers, mergeMCPConfigs, parseMCPConfig, type MCPServerConfig, type ParsedMCPConfig } from '@panto/core/mcp';
import { readFile } from 'node:fs/promises';
import { CLI_VERSION } from '../version.js';
import type { Terminal } from '../ui/terminal.js';

export interface MCPConfigFiles {
  /** `$PANTO_HOME/mcp.json` */
  global: string;
  /** `<working folder>/.panto/mcp.json`: its servers replace the global file's of the same name; absent when the folder is not trusted. */
  project?: string;
}

/**
 * The servers of `$PANTO_HOME/mcp.json` and `.panto/mcp.json`, `${VAR}`s expanded from
 * `env`. A missing file is no servers; an unreadable or malformed one, or a bad server, is a
 * problem to show (the rest still run).
 */
export async function readMCPConfig(
  files: MCPConfigFiles,
  env: Readonly<Record<string, string | undefined>>,
  show: (file: string) => string,
): Promise<ParsedMCPConfig> {
  const configs: ParsedMCPConfig[] = [];
  const paths = files.project === undefined || files.project === files.global ? [files.global] : [files.global, files.project];
  for (const file of paths) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      configs.push({ servers: [], problems: [`${show(file)}: cannot be read: ${(error as Error).message}`] });
      continue;
    }
    configs.push(parseMCPConfig(text, show(file), { env }));
  }
  return mergeMCPConfigs(...configs);
}

/**
 * Registers the tools of the servers that are connected and not yet registered (a server
 * that connected since the last turn, or came back); waits for servers still starting. A
 * name another tool holds is reported once and left out.
 */
export async function registerMCPTools(mcp: MCPServers, registry: ToolRegistry, warn: (message: string) => void, reported: Set<string>): Promise<void> {
  for (const tool of await mcp.tools()) {
    const existing = registry.get(tool.name);
    if (existing === tool) continue;
    if (existing !== undefined) {
      if (!reported.has(tool.name)) warn(`MCP tool ${tool.name} is not offered: another tool has that name`);
      reported.add(tool.name);
      continue;
    }
    registry.register(tool);
  }
}

/**
 * The MCP servers of `$PANTO_HOME/mcp.json` and `.panto/mcp.json` (and `extra`, an ACP
 * client's, which win over a file's server of the same name), connecting in the background
 * from now on (the first turn waits for those still starting); undefined when none is
 * configured. Config problems and servers that fail are warnings, never fatal.
 */
export async function startMCP(
  files: MCPConfigFiles,
  options: {
    env: Readonly<Record<string, string | undefined>>;
    cwd: string;
    terminal: Terminal;
    show: (path: string) => string;
    extra?: readonly MCPServerConfig[];
  },
): Promise<MCPServers | undefined> {
  const { terminal } = options;
  const config = mergeMCPConfigs(await readMCPConfig(files, options.env, options.show), { servers: [...(options.extra ?? [])], problems: [] });
  for (const problem of config.problems) terminal.warn(`panto: ${problem}`);
  if (config.servers.length === 0) return undefined;
  const mcp = new MCPServers(config.servers, {
    // Loaded on first use: a run with no server configured never loads the SDK.
    sdk: () => import('@panto/core/mcp/sdk'),
    cwd: options.cwd,
    clientInfo: { name: 'panto', version: CLI_VERSION },
    onNotice: (notice) => terminal.warn(`panto: ${notice.message}`),
  });
  void mcp.connect();
  return mcp;
}

/**
 * What runs before each turn when MCP servers are configured: waits for the servers still
 * starting (with a spinner) and registers the tools of those connected. Never throws.
 */
export function mcpBeforeTurn(mcp: MCPServers, registry: ToolRegistry, terminal: Terminal): () => Promise<void> {
  const reported = new Set<string>();
  return async () => {
    if (mcp.info().some((server) => server.status === 'connecting')) terminal.spin('starting MCP servers…');
    await registerMCPTools(mcp, registry, (message) => terminal.warn(`panto: ${message}`), reported);
    terminal.stopSpinner();
  };
}
