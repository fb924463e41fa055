import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AbortedError, errorMessage } from '../errors.js';
import { redactSecrets } from '../redact.js';
import { exceedsJSONDepth } from '../json-limits.js';
import type { JsonValue } from '../messages.js';
import type { ToolInputSchema, ToolOutput } from '../tool.js';
import { displayURL, type MCPServerConfig } from './config.js';
import { mcpToolName } from './names.js';
import { toolOutputFromMCP } from './result.js';
import type { MCPClientSDK, MCPNotice, MCPServerInfo, MCPServerStatus, MCPToolAnnotations } from './types.js';

/** A server's tool, with the name the model sees it by. */
export interface ToolEntry {
  name: string;
  tool: string;
  description: string;
  input_schema: ToolInputSchema;
  /** The hints the server gave about it (`readOnlyHint`, …), as far as they are booleans and a string title. */
  annotations: MCPToolAnnotations;
}

/** A listed tool as the connection keeps it. */
type ListedTool = Omit<ToolEntry, 'name'>;

/** What every connection of one {@link MCPServers} shares. */
export interface ConnectionSettings {
  sdk: () => Promise<MCPClientSDK>;
  connectTimeoutMs: number;
  callTimeoutMs: number;
  retryAfterMs: number;
  maxResultBytes: number;
  clientInfo: { name: string; version: string };
  cwd?: string;
  now: () => number;
  notice: (notice: MCPNotice) => void;
}

const STDERR_LINES = 20;

/** One server: its client, its state, and the tail of its stderr. */
export class ServerConnection {
  readonly config: MCPServerConfig;
  readonly #settings: ConnectionSettings;
  #status: MCPServerStatus = 'connecting';
  #started = false;
  #error: string | undefined;
  #failedAt = 0;
  #client: Client | undefined;
  #pid: (() => number | null) | undefined;
  #connecting: Promise<void> | undefined;
  #tools: ListedTool[] = [];
  #names: { name: string; tool: string }[] = [];
  readonly #stderr: string[] = [];
  #partialLine = '';

  constructor(config: MCPServerConfig, settings: ConnectionSettings) {
    this.config = config;
    this.#settings = settings;
  }

  get status(): MCPServerStatus {
    return this.#status;
  }

  connect(): Promise<void> {
    if (this.#status === 'connected' || this.#status === 'closed') return Promise.resolve();
    if (this.#connecting !== undefined) return this.#connecting;
    if (this.#status === 'failed' && this.#settings.now() - this.#failedAt < this.#settings.retryAfterMs) return Promise.resolve();
    this.#connecting = this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** The model's names for this server's tools, made once per tool and kept in `names`. */
  toolEntries(names: Map<string, { server: string; tool: string }>): ToolEntry[] {
    return this.#tools.map((tool) => {
      let name = this.#names.find((known) => known.tool === tool.tool)?.name;
      if (name === undefined) {
        name = mcpToolName(this.config.name, tool.tool);
        const owner = names.get(name);
        if (owner !== undefined && (owner.server !== this.config.name || owner.tool !== tool.tool))
          name = mcpToolName(this.config.name, tool.tool, { hashed: true });
        names.set(name, { server: this.config.name, tool: tool.tool });
        this.#names.push({ name, tool: tool.tool });
      }
      return { name, ...tool };
    });
  }

  info(): MCPServerInfo {
    const { config } = this;
    return {
      name: config.name,
      transport: config.type,
      target: config.type === 'stdio' ? [config.command, ...config.args].join(' ') : displayURL(config.url),
      source: config.source,
      status: this.#status,
      ...(this.#error === undefined ? {} : { error: this.#error }),
      stderr: [...this.#stderr],
      tools: this.#status === 'connected' ? this.#names.filter((known) => this.#tools.some((tool) => tool.tool === known.tool)) : [],
    };
  }

  /** Calls a tool; every failure is an error result the model sees, except the turn's own abort. */
  async call(tool: string, input: { [key: string]: JsonValue }, signal: AbortSignal): Promise<ToolOutput> {
    const server = this.config.name;
    if (this.#status !== 'connected' || this.#client === undefined) {
      return failure(`MCP server "${server}" is not available${this.#error ? `: ${this.#error}` : ''}. Its tools cannot be used now.`);
    }
    try {
      return toolOutputFromMCP(await this.#callOnce(this.#client, tool, input, signal), this.#settings.maxResultBytes);
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      // The server forgot the session (it restarted): the spec says start a new one. The
      // call was refused, not run, so it is safe to send again, once.
      if (this.config.type === 'http' && sessionLost(error)) {
        await this.#reconnect();
        const client = this.#client as Client | undefined;
        if (this.#status === 'connected' && client !== undefined) {
          try {
            return toolOutputFromMCP(await this.#callOnce(client, tool, input, signal), this.#settings.maxResultBytes);
          } catch (retryError) {
            if (signal.aborted) throw abortReason(signal);
            return this.#callFailure(tool, retryError);
          }
        }
        return failure(`MCP server "${server}" is not available: ${this.#error ?? 'it could not be reached again'}`);
      }
      return this.#callFailure(tool, error);
    }
  }

  async close(): Promise<void> {
    const previous = this.#status;
    this.#status = 'closed';
    if (previous !== 'closed') await this.#reset();
  }

  #callOnce(client: Client, tool: string, input: { [key: string]: JsonValue }, signal: AbortSignal): Promise<unknown> {
    return client.callTool({ name: tool, arguments: input }, undefined, {
      signal,
      timeout: this.#settings.callTimeoutMs,
    });
  }

  #callFailure(tool: string, error: unknown): ToolOutput {
    const server = this.config.name;
    if (mcpErrorCode(error) === REQUEST_TIMEOUT) {
      return failure(`MCP server "${server}" did not answer ${tool} within ${duration(this.#settings.callTimeoutMs)}`);
    }
    if (this.#status !== 'connected') {
      return failure(`MCP server "${server}" stopped while running ${tool}: ${this.#error ?? errorMessage(error)}`);
    }
    return failure(`MCP server "${server}" failed to run ${tool}: ${errorMessage(error)}`);
  }

  async #open(): Promise<void> {
    const { config } = this;
    const first = !this.#started;
    this.#started = true;
    this.#status = 'connecting';
    this.#error = undefined;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${duration(this.#settings.connectTimeoutMs)}`)),
      this.#settings.connectTimeoutMs,
    );
    try {
      const sdk = await this.#settings.sdk();
      const transport = this.#createTransport(sdk);
      const Client = sdk.Client;
      // Closed while the SDK loaded: start nothing (the transport starts with connect).
      if (this.#isClosed()) return;
      const client = new Client(this.#settings.clientInfo, { capabilities: {} });
      this.#client = client;
      client.onclose = () => this.#closed(client);
      const options = { signal: controller.signal, timeout: this.#settings.connectTimeoutMs };
      await untilAborted(client.connect(transport, options), controller.signal);
      const tools: ListedTool[] = [];
      if (client.getServerCapabilities()?.tools !== undefined) {
        let cursor: string | undefined;
        do {
          const page = await untilAborted(client.listTools(cursor === undefined ? {} : { cursor }, options), controller.signal);
          for (const tool of page.tools) {
            // A schema nested deeper than panto's limit would make every provider request fail to serialise: such a tool is not offered.
            if (exceedsJSONDepth(tool.inputSchema)) continue;
            tools.push({
              tool: tool.name,
              description: tool.description ?? tool.title ?? `${tool.name} (from the MCP server ${config.name})`,
              input_schema: { ...(tool.inputSchema as ToolInputSchema), type: 'object' },
              annotations: toolAnnotations(tool.annotations),
            });
          }
          cursor = page.nextCursor;
        } while (cursor !== undefined);
      }
      if (this.#client !== client) throw new Error(this.#error ?? 'the connection closed while it was being set up');
      if (this.#isClosed()) {
        await this.#reset();
        return;
      }
      this.#tools = tools;
      this.#status = 'connected';
    } catch (error) {
      const reason = controller.signal.aborted ? errorMessage(controller.signal.reason) : (this.#error ?? errorMessage(error));
      await this.#fail(`${first ? 'could not start' : 'could not reconnect'}: ${reason}${this.#stderrHint()}`);
    } finally {
      clearTimeout(timer);
    }
  }

  #createTransport(sdk: MCPClientSDK): Transport {
    const { config } = this;
    if (config.type === 'http') {
      const HTTPTransport = sdk.StreamableHTTPClientTransport;
      if (HTTPTransport === undefined) throw new Error('this host cannot reach Streamable HTTP servers');
      return new HTTPTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    }
    const StdioTransport = sdk.StdioClientTransport;
    if (StdioTransport === undefined) throw new Error('this host cannot start stdio servers');
    const cwd = config.cwd ?? this.#settings.cwd;
    const transport = new StdioTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      stderr: 'pipe',
      ...(cwd === undefined ? {} : { cwd }),
    });
    transport.stderr?.on('data', (chunk: Buffer) => this.#keepStderr(chunk.toString('utf8')));
    this.#pid = () => transport.pid;
    return transport;
  }

  /** The client closed: the server exited or the connection dropped. */
  #closed(client: Client): void {
    if (this.#client !== client || this.#status === 'closed') return;
    const wasConnected = this.#status === 'connected';
    this.#client = undefined;
    this.#status = 'failed';
    this.#failedAt = this.#settings.now();
    const what = this.config.type === 'stdio' ? 'the server exited' : 'the connection closed';
    // While connecting, the failure is reported (with the stderr hint) by #open.
    this.#error ??= wasConnected ? `${what}${this.#stderrHint()}` : what;
    if (wasConnected)
      this.#settings.notice({
        server: this.config.name,
        message: `MCP server "${this.config.name}" stopped: ${this.#error}`,
      });
  }

  async #fail(reason: string): Promise<void> {
    this.#error = reason;
    await this.#reset();
    if (this.#status === 'closed') return;
    this.#status = 'failed';
    this.#failedAt = this.#settings.now();
    this.#settings.notice({ server: this.config.name, message: `MCP server "${this.config.name}" ${reason}` });
  }

  /** Whether `close()` was called (also while an `await` was pending). */
  #isClosed(): boolean {
    return this.#status === 'closed';
  }

  /** A new session at once, whatever the retry delay. */
  async #reconnect(): Promise<void> {
    await this.#reset();
    if (this.#status === 'closed') return;
    this.#status = 'failed';
    this.#failedAt = Number.NEGATIVE_INFINITY;
    await this.connect();
  }

  /** Drops the client and stops the server process, promptly. */
  async #reset(): Promise<void> {
    const client = this.#client;
    const pid = this.#pid?.();
    this.#client = undefined;
    this.#pid = undefined;
    if (client === undefined) return;
    // Closing is best effort: the connection is dropped either way, and a server that will not close is killed below.
    const closing = client.close().catch(() => {});
    // The SDK waits 2 s for a stdio server to leave after its stdin closes; do not keep the user waiting.
    const waited = await Promise.race([closing.then(() => true), delay(300).then(() => false)]);
    if (!waited && pid !== undefined && pid !== null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await closing;
    }
  }

  #keepStderr(text: string): void {
    const lines = (this.#partialLine + text).split('\n');
    this.#partialLine = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') this.#stderr.push(line.trimEnd());
    this.#stderr.splice(0, Math.max(0, this.#stderr.length - STDERR_LINES));
  }

  #stderrHint(): string {
    const last = this.#stderr[this.#stderr.length - 1] ?? this.#partialLine.trim();
    return last ? ` (its last words: ${last.length > 200 ? `${last.slice(0, 199)}…` : last})` : '';
  }
}

/** The annotations a server listed, keeping only the hints typed as the spec says (a hint of another type is no hint). */
function toolAnnotations(value: unknown): MCPToolAnnotations {
  if (typeof value !== 'object' || value === null) return {};
  const given = value as { [key: string]: unknown };
  const annotations: MCPToolAnnotations = {};
  for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    const flag = given[hint];
    if (typeof flag === 'boolean') annotations[hint] = flag;
  }
  if (typeof given.title === 'string') annotations.title = given.title;
  return annotations;
}

/** What a call the turn aborted throws: the signal's reason. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new AbortedError('aborted');
}

const REQUEST_TIMEOUT = -32001;

function mcpErrorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && error.name === 'McpError' && typeof code === 'number' ? code : undefined;
}

/**
 * Whether a Streamable HTTP server refused a request because it does not know the session:
 * 404, as the spec says, or 400 naming the session id, as the reference servers answer.
 */
function sessionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || !error.message.startsWith('Streamable HTTP error')) return false;
  return code === 404 || (code === 400 && /session/i.test(error.message));
}

/** `promise`, or a rejection as soon as `signal` aborts (the SDK's connect does not always watch it). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A call's failure as the model sees it: the error's words (a transport's, quoting a refused request) may hold a credential the server was sent. */
function failure(content: string): ToolOutput {
  return { content: redactSecrets(content), is_error: true };
}
