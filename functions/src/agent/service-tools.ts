import type { Tool } from '@panto/core';
import { ToolRegistry } from '@panto/core';
import { MCPServers, type MCPHTTPServerConfig } from '@panto/core/mcp';

/**
 * `current_time`: the current date and time, in UTC or in an IANA time zone. The service's
 * only built-in tool: a Lambda function has no workspace worth giving a model, so the
 * service offers nothing that reads or writes files or runs commands.
 */
export function currentTimeTool(clock: () => Date = () => new Date()): Tool {
  return {
    name: 'current_time',
    description: 'The current date and time (ISO 8601 in UTC, plus the local time in `time_zone` when given).',
    input_schema: {
      type: 'object',
      properties: { time_zone: { type: 'string', description: 'An IANA time zone such as Europe/Paris.' } },
    },
    execute: async (input) => {
      const now = clock();
      const zone = input.time_zone;
      if (zone === undefined || zone === null) return now.toISOString();
      if (typeof zone !== 'string') return { content: 'time_zone must be a string', is_error: true };
      try {
        const local = new Intl.DateTimeFormat('en-CA', {
          timeZone: zone,
          dateStyle: 'short',
          timeStyle: 'long',
          hourCycle: 'h23',
        }).format(now);
        return `${now.toISOString()} (${zone}: ${local})`;
      } catch {
        return { content: `unknown time zone: ${zone}`, is_error: true };
      }
    },
  };
}

/** The service's built-in tools: `current_time`. */
export function serviceTools(): ToolRegistry {
  return new ToolRegistry([currentTimeTool()]);
}

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
 * those not yet connected first. A server that cannot be reached leaves its tools out of
 * this turn; a call that fails is an error result the model sees. Never rejects.
 *
 * @example
 * createApp({ …, tools: toolsWithMCP(serviceMCPServers(config.mcp.servers, console.warn)) });
 */
export function toolsWithMCP(mcp: MCPServers): () => Promise<ToolRegistry> {
  return async () => new ToolRegistry([...serviceTools().list(), ...(await mcp.tools())]);
}
