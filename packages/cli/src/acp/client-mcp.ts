/**
 * The MCP servers an ACP client hands a session (`session/new`, `session/load`), as panto's
 * MCP configs: stdio (`command`, `args`, `env`) and Streamable HTTP (`url`, `headers`), the
 * two transports panto speaks (`mcpCapabilities: { http: true }`); they are checked as
 * `mcp.json`'s servers are. No `${VAR}` is expanded: the client gives the values themselves.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { parseMCPConfig, type MCPServerConfig } from '@panto/core/mcp';

/** Where a client's server came from, in messages. */
export const CLIENT_MCP_SOURCE = 'the ACP client';

/** The client's servers, or what is wrong with them (then none is used). */
export function clientMCPServers(servers: readonly McpServer[]): { servers: MCPServerConfig[] } | { problem: string } {
  // A Map, then own properties: a server named "__proto__" is a name like any other.
  const entries = new Map<string, unknown>();
  for (const server of servers) {
    const name = server.name;
    if (entries.has(name)) return { problem: `two MCP servers are named ${JSON.stringify(server.name)}` };
    if ('type' in server && (server.type === 'sse' || server.type === 'acp')) {
      return { problem: `MCP server ${JSON.stringify(server.name)}: panto does not speak the ${server.type} transport (it takes stdio and http)` };
    }
    if ('url' in server) entries.set(server.name, { type: 'http', url: server.url, headers: pairs(server.headers) });
    else if ('command' in server) entries.set(server.name, { command: server.command, args: server.args, env: pairs(server.env) });
    else return { problem: `MCP server ${JSON.stringify(name)}: expected a command (stdio) or a url (http)` };
  }
  const parsed = parseMCPConfig({ mcpServers: Object.fromEntries(entries) }, CLIENT_MCP_SOURCE);
  const [problem] = parsed.problems;
  return problem === undefined ? { servers: parsed.servers } : { problem };
}

function pairs(list: readonly { name: string; value: string }[] | undefined): { [name: string]: string } {
  return Object.fromEntries((list ?? []).map(({ name, value }) => [name, value]));
}
