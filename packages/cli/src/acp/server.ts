/**
 * `panto acp`: panto as an Agent Client Protocol agent, built on the official library's
 * agent app (`@agentclientprotocol/sdk`, protocol version 1). It answers `initialize`,
 * `session/new`, `session/load`, `session/resume`, `session/list`, `session/close`,
 * `session/prompt` and `session/cancel`; the sessions are panto's own (the ACP `sessionId`
 * is the panto session id), started and listed by the {@link ACPHost}.
 */
import { agent, PROTOCOL_VERSION, RequestError, type AgentApp, type AgentContext, type InitializeResponse, type McpServer } from '@agentclientprotocol/sdk';
import { isValidId, SessionNotFoundError } from '@panto/core';
import type { MCPServerConfig } from '@panto/core/mcp';
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { clientMCPServers } from './client-mcp.js';
import type { ACPHost } from './host.js';
import { ACPSession, ERROR_CODES, type ClientChannel } from './session.js';

/** What `initialize` answers, whatever the client offers. */
export function initializeResponse(version: string): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    },
    agentInfo: { name: 'panto', title: 'panto', version },
    authMethods: [],
  };
}

/** The ACP agent app, and the sessions it opened. */
export interface ACPServer {
  readonly app: AgentApp;
  /** Cancels every running prompt and closes every session (the connection ended). Never throws. */
  closeAll(): Promise<void>;
}

/**
 * @example
 * const server = createACPServer(host, CLI_VERSION);
 * const connection = server.app.connect(ndJsonStream(stdout, stdin));
 * await connection.closed;
 * await server.closeAll();
 */
export function createACPServer(host: ACPHost, version: string): ACPServer {
  const sessions = new Map<string, ACPSession>();
  /** Sessions being started by a `session/load` or `session/resume`, by id. */
  const opening = new Map<string, Promise<ACPSession>>();
  const find = (sessionId: string): ACPSession => {
    const session = sessions.get(sessionId);
    if (session === undefined)
      throw new RequestError(ERROR_CODES.notFound, `no session ${JSON.stringify(sessionId)} is open: create one with session/new or load it`);
    return session;
  };
  /** `session/load` and `session/resume`: the session open in this process, or started from its store. */
  const resume = async (params: { sessionId: string; cwd: string; mcpServers: readonly McpServer[] }, client: AgentContext): Promise<ACPSession> => {
    if (!isValidId(params.sessionId))
      throw new RequestError(ERROR_CODES.invalidParams, `not a panto session id: ${JSON.stringify(params.sessionId).slice(0, 80)}`);
    const request = await sessionRequest(params.cwd, params.mcpServers);
    const open = sessions.get(params.sessionId);
    if (open?.busy) throw new RequestError(ERROR_CODES.invalidRequest, 'the session has a prompt running; cancel it first');
    // Open in this process: it holds exactly what its store holds (a new session may have no file yet).
    if (open !== undefined) return open;
    // Two loads at once start it once: two agents on one session file would be two writers.
    let started = opening.get(params.sessionId);
    if (started === undefined) {
      started = ACPSession.open(host, channel(client), { ...request, sessionId: params.sessionId })
        .then((session) => {
          sessions.set(session.sessionId, session);
          return session;
        })
        .catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          throw new RequestError(error instanceof SessionNotFoundError ? ERROR_CODES.notFound : ERROR_CODES.internal, message);
        })
        .finally(() => opening.delete(params.sessionId));
      opening.set(params.sessionId, started);
    }
    return started;
  };
  const app = agent({ name: 'panto' })
    .onRequest('initialize', () => initializeResponse(version))
    .onRequest('session/new', async ({ params, client }) => {
      const request = await sessionRequest(params.cwd, params.mcpServers);
      const session = await ACPSession.open(host, channel(client), request);
      sessions.set(session.sessionId, session);
      host.log(`panto: new session ${session.sessionId} in ${session.cwd}`);
      return { sessionId: session.sessionId };
    })
    .onRequest('session/load', async ({ params, client }) => {
      const session = await resume(params, client);
      await session.replay();
      host.log(`panto: loaded session ${session.sessionId} in ${session.cwd}`);
      return {};
    })
    .onRequest('session/resume', async ({ params, client }) => {
      const session = await resume({ ...params, mcpServers: params.mcpServers ?? [] }, client);
      host.log(`panto: resumed session ${session.sessionId} in ${session.cwd}`);
      return {};
    })
    .onRequest('session/list', async ({ params }) => {
      if (params.cursor !== undefined && params.cursor !== null)
        throw new RequestError(ERROR_CODES.invalidParams, 'panto lists every session at once; it gives no cursor');
      const cwd = params.cwd ?? undefined;
      if (cwd !== undefined && !isAbsolute(cwd)) throw new RequestError(ERROR_CODES.invalidParams, 'cwd must be an absolute path');
      return { sessions: await host.list(cwd === undefined ? undefined : resolve(cwd)) };
    })
    .onRequest('session/close', async ({ params }) => {
      const session = find(params.sessionId);
      sessions.delete(params.sessionId);
      await session.close();
      return {};
    })
    .onRequest('session/prompt', ({ params, signal }) => find(params.sessionId).prompt(params.prompt, signal))
    .onNotification('session/cancel', ({ params }) => sessions.get(params.sessionId)?.cancel());
  return {
    app,
    async closeAll() {
      await Promise.all([...sessions.values()].map((session) => session.close()));
      sessions.clear();
    },
  };
}

/** The session's folder (absolute, an existing folder) and its client's MCP servers; an invalid-params error otherwise. */
async function sessionRequest(cwd: string, servers: readonly McpServer[]): Promise<{ cwd: string; mcpServers: MCPServerConfig[] }> {
  if (!isAbsolute(cwd)) throw new RequestError(ERROR_CODES.invalidParams, `cwd must be an absolute path, got ${JSON.stringify(cwd).slice(0, 200)}`);
  // A folder that is not there is the client's mistake, said as such (not a failure of panto).
  const folder = await stat(cwd).catch(() => undefined);
  if (folder?.isDirectory() !== true) throw new RequestError(ERROR_CODES.invalidParams, `cwd is not a folder: ${cwd}`);
  const mcp = clientMCPServers(servers);
  if ('problem' in mcp) throw new RequestError(ERROR_CODES.invalidParams, mcp.problem);
  return { cwd: resolve(cwd), mcpServers: mcp.servers };
}

function channel(client: AgentContext): ClientChannel {
  return {
    update: (params) => client.notify('session/update', params),
    requestPermission: (params, signal) => client.request('session/request_permission', params, { cancellationSignal: signal }),
  };
}
