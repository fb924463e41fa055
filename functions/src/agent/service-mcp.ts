/**
 * The service's MCP servers and the tools they add to every turn. A module of its own, which
 * the app loads only when servers are configured (see `serviceApp`): the MCP client's code is
 * no part of a cold start without them, and with them is loaded by the first turn.
 */
import { ToolRegistry } from '@panto/core/agent-kit';
import { MCPServers, type MCPHTTPServerConfig } from '@panto/core/mcp';
import type { MCPApprovalRules } from '../mcp-approvals.js';
import { serviceTools } from './service-tools.js';
import { withApproval } from './tool-approvals.js';

/**
 * How the service treats MCP servers. A synchronous turn has 25 s: a server gets 5 s to
 * connect and list its tools (or the turn goes on without them), and one that failed is not
 * tried again for 30 s, so an outage costs one turn 5 s, not every turn. A call is cut by
 * the turn's deadline, or after 60 s in a streamed turn.
 */
export const SERVICE_MCP_OPTIONS = { connectTimeoutMs: 5_000, callTimeoutMs: 60_000, retryAfterMs: 30_000 } as const;

/**
 * The service's MCP servers, for one warm process: nothing is connected until a turn asks
 * for the tools, then each connection is kept for the turns that follow. `warn` hears of
 * servers that fail, in one line without headers. Must not throw.
 */
export function serviceMCPServers(servers: readonly MCPHTTPServerConfig[], warn: (message: string) => void): MCPServers {
  return new MCPServers(servers, {
    ...SERVICE_MCP_OPTIONS,
    sdk: () => import('@panto/core/mcp/sdk'),
    clientInfo: { name: 'panto-service', version: '0.1.0' },
    onNotice: (notice) => warn(notice.message),
  });
}

/**
 * The tools of every turn: `current_time` and the tools of `mcp`'s servers — connecting
 * those not yet connected first —, each MCP tool asking for approval as `approvals` (the
 * operator's rules, `PANTO_MCP_APPROVALS`) and its annotations say (see tool-approvals.ts).
 * A server that cannot be reached leaves its tools out of this turn; a call that fails is an
 * error result the model sees. Never rejects.
 *
 * @example
 * createApp({ …, tools: toolsWithMCP(serviceMCPServers(config.mcp.servers, console.warn), config.mcp.approvals) });
 */
export function toolsWithMCP(mcp: MCPServers, approvals: MCPApprovalRules = {}): () => Promise<ToolRegistry> {
  return async () => new ToolRegistry([...serviceTools().list(), ...(await mcp.tools()).map((tool) => withApproval(tool, approvals))]);
}
