/**
 * `@panto/core/mcp/sdk`: the parts of the MCP SDK that `MCPServers` uses, as an
 * {@link MCPClientSDK}. Import it statically where everything is bundled, or lazily where a
 * host should not load the SDK until a server is configured.
 *
 * @example
 * new MCPServers(servers, { sdk: () => import('@panto/core/mcp/sdk') });
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
