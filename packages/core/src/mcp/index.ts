/**
 * `@panto/core/mcp`: MCP (Model Context Protocol) servers' tools as panto tools — the
 * configuration format of `mcp.json`, the names models see (`mcp__<server>__<tool>`), and
 * {@link MCPServers}, which connects to stdio and Streamable HTTP servers on first use.
 * {@link MCPServers} takes the SDK from `@panto/core/mcp/sdk`, loaded as the host likes.
 */
export {
  displayURL,
  mergeMCPConfigs,
  parseMCPConfig,
  type MCPHTTPServerConfig,
  type MCPServerConfig,
  type MCPStdioServerConfig,
  type ParsedMCPConfig,
  type ParseMCPConfigOptions,
} from './config.js';
export { mcpToolName, TOOL_NAME_RULE } from './names.js';
export { MAX_RESULT_BYTES, toolOutputFromMCP } from './result.js';
export { MCPServers, type MCPServersOptions } from './servers.js';
export type { MCPClientSDK, MCPNotice, MCPServerInfo, MCPServerStatus, MCPTool, MCPToolAnnotations } from './types.js';
