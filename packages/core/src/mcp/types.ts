import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '../tool.js';
import type { MCPServerConfig } from './config.js';

/**
 * What an MCP server says about a tool (the spec's `ToolAnnotations`). Hints, from the
 * server: a host decides what it trusts them for (the service asks for approval of every tool
 * not marked `readOnlyHint: true`, unless its operator says otherwise).
 */
export interface MCPToolAnnotations {
  title?: string;
  /** The tool does not change its environment. */
  readOnlyHint?: boolean;
  /** It may destroy or overwrite (meaningful when not read-only). */
  destructiveHint?: boolean;
  /** Calling it twice with the same input does no more than once. */
  idempotentHint?: boolean;
  /** It reaches beyond the server (the web, other systems). */
  openWorldHint?: boolean;
}

/** An MCP server's tool as a panto tool, with where it comes from. */
export interface MCPTool extends Tool {
  readonly mcp: {
    /** The server's name (its key in `mcpServers`). */
    readonly server: string;
    /** The tool's own name on that server. */
    readonly tool: string;
    readonly annotations: MCPToolAnnotations;
  };
}

/** Where a server stands. */
export type MCPServerStatus = 'connecting' | 'connected' | 'failed' | 'closed';

/** One server, as `/mcp` shows it. */
export interface MCPServerInfo {
  name: string;
  transport: MCPServerConfig['type'];
  /** The command line (stdio) or the URL without query or credentials (HTTP): never headers or env. */
  target: string;
  source: string;
  status: MCPServerStatus;
  /** Why it failed: did not start, timed out, exited, refused. */
  error?: string;
  /** The last lines the server wrote to stderr (stdio), for a failure's cause. */
  stderr: readonly string[];
  /** Its tools: the name the model sees, and the server's own. */
  tools: readonly { name: string; tool: string }[];
}

/** Something the user should hear about: a server that failed to start, or died. */
export interface MCPNotice {
  server: string;
  message: string;
}

/**
 * The parts of the MCP SDK the servers need: `@panto/core/mcp/sdk` is all of them. A host
 * passes it as it likes to load it — a function importing it on first use (the CLI: no
 * cost when no server is configured), or the module itself (a bundled Lambda: esbuild
 * turns a dynamic `import()` of a graph that shares modules with the rest of the bundle
 * into lazy wrappers, which broke the service's bundle at load).
 */
export interface MCPClientSDK {
  Client: typeof Client;
  /** For stdio servers. */
  StdioClientTransport?: typeof StdioClientTransport;
  /** For Streamable HTTP servers. */
  StreamableHTTPClientTransport?: typeof StreamableHTTPClientTransport;
}
