import type { MCPServerConfig } from './config.js';
import { MAX_RESULT_BYTES } from './result.js';
import { type ConnectionSettings, ServerConnection, type ToolEntry } from './server-connection.js';
import type { MCPClientSDK, MCPNotice, MCPServerInfo, MCPTool } from './types.js';

export interface MCPServersOptions {
  /** The MCP SDK, or how to load it when the first server connects (see {@link MCPClientSDK}). */
  sdk: MCPClientSDK | (() => Promise<MCPClientSDK>);
  /** How long starting a server, its handshake and its tool list may take (default 30 s). */
  connectTimeoutMs?: number;
  /** How long one tool call may take (default 120 s); the turn's abort ends it sooner. */
  callTimeoutMs?: number;
  /** A failed server is tried again when tools are next asked for, this long after it failed (default 30 s). */
  retryAfterMs?: number;
  /** Text results are cut above this many bytes (default 100 KB). */
  maxResultBytes?: number;
  /** The folder stdio servers start in, unless their config names one (default: this process's). */
  cwd?: string;
  /** Who the client says it is in the handshake. */
  clientInfo?: { name: string; version: string };
  /** Told when a server fails to start or stops answering. Must not throw. */
  onNotice?: (notice: MCPNotice) => void;
  /** The clock failures are timed with (tests). */
  now?: () => number;
}

/**
 * The MCP servers of one host (the CLI, a warm Lambda), connected on first use and kept
 * connected; their tools as panto `Tool`s named `mcp__<server>__<tool>`. A server that
 * fails to start, times out or dies is a notice and, when the model calls one of its
 * tools, an error result the model sees — never an exception for the host.
 *
 * @example
 * const mcp = new MCPServers(parseMCPConfig(json, 'mcp.json').servers, {
 *   sdk: () => import('@panto/core/mcp/sdk'),
 *   onNotice: (notice) => console.warn(notice.message),
 * });
 * for (const tool of await mcp.tools()) agent.tools.register(tool);
 * // …
 * await mcp.close();
 */
export class MCPServers {
  readonly #connections: ServerConnection[];
  readonly #tools = new Map<string, MCPTool>();
  /** Every name handed out, to its server and tool: the names stay the same for the life of the host. */
  readonly #names = new Map<string, { server: string; tool: string }>();

  constructor(configs: readonly MCPServerConfig[], options: MCPServersOptions) {
    let sdk: Promise<MCPClientSDK> | undefined;
    const loadSDK = options.sdk;
    const settings: ConnectionSettings = {
      sdk: () => (sdk ??= typeof loadSDK === 'function' ? loadSDK() : Promise.resolve(loadSDK)),
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 120_000,
      retryAfterMs: options.retryAfterMs ?? 30_000,
      maxResultBytes: options.maxResultBytes ?? MAX_RESULT_BYTES,
      clientInfo: options.clientInfo ?? { name: 'panto', version: '0.1.0' },
      now: options.now ?? Date.now,
      notice: (notice) => {
        try {
          options.onNotice?.(notice);
        } catch {
          // A listener must not throw; the servers go on regardless.
        }
      },
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    };
    this.#connections = configs.map((config) => new ServerConnection(config, settings));
  }

  /** Whether any server is configured. */
  get size(): number {
    return this.#connections.length;
  }

  /**
   * Connects every server that is not connected (a failed one only once `retryAfterMs` has
   * passed), all at once. Resolves when each has connected or failed; never rejects.
   */
  async connect(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.connect()));
  }

  /**
   * The tools of every connected server, connecting first as {@link connect} does. A
   * server that failed is left out until it connects again. The same tool is the same
   * object every time, so a registry can tell which it already holds. Each says where it
   * comes from and what its server says of it (`mcp`: server, tool, annotations).
   */
  async tools(): Promise<MCPTool[]> {
    await this.connect();
    const tools: MCPTool[] = [];
    for (const connection of this.#connections) {
      if (connection.status !== 'connected') continue;
      for (const entry of connection.toolEntries(this.#names)) tools.push(this.#tool(connection, entry));
    }
    return tools;
  }

  /** Every server, its status and its tools. */
  info(): MCPServerInfo[] {
    return this.#connections.map((connection) => connection.info());
  }

  /** Closes every connection and stops every server panto started. */
  async close(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.close()));
  }

  #tool(connection: ServerConnection, entry: ToolEntry): MCPTool {
    let tool = this.#tools.get(entry.name);
    if (tool === undefined) {
      tool = {
        name: entry.name,
        description: entry.description,
        input_schema: entry.input_schema,
        mcp: { server: connection.config.name, tool: entry.tool, annotations: entry.annotations },
        execute: (input, context) => connection.call(entry.tool, input, context.signal),
      };
      this.#tools.set(entry.name, tool);
    }
    return tool;
  }
}
