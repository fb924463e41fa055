/**
 * A2A v1.0 (the Agent2Agent protocol) on the service: the Agent Card at
 * `GET /.well-known/agent-card.json` (public) and the JSON-RPC binding at `POST /a2a`, which
 * streams (`SendStreamingMessage`, `SubscribeToTask` answer server-sent events) and so is served
 * by the streaming function on AWS. The SDK's `JsonRpcTransportHandler` reads and dispatches
 * each call to panto's request handler (a2a/request-handler.ts); this module is the HTTP around
 * it, as the SDK's Express adapter is: the caller (authenticated by the app's middleware, before
 * anything runs), the A2A-Version header, a body that is not JSON, idempotent sends, and SSE.
 */
import { createHash } from 'node:crypto';
import { AgentCard } from '@a2a-js/sdk';
import { VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, type User } from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { agentCard } from '../a2a/agent-card.js';
import { toA2AError } from '../a2a/a2a-errors.js';
import { PantoRequestHandler } from '../a2a/request-handler.js';
import { RequestError } from '../errors.js';
import type { ApiApp, AppEnv } from '../http/app-env.js';
import { route } from '../http/route.js';
import { readJson } from './read-request.js';
import type { RouteDeps } from './route-deps.js';
import { eventSender } from './sse.js';

/** A JSON-RPC answer, as the SDK's transport makes them. */
interface RpcResponse {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: unknown;
}

/** The caller the app authenticated, as the SDK's handlers read a user. */
class Owner implements User {
  readonly #owner: string;
  constructor(owner: string) {
    this.#owner = owner;
  }
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.#owner;
  }
}

/** A send that answered a JSON-RPC error: not kept for its idempotency key (see `sendOnce`). */
class RpcErrorAnswer extends Error {
  constructor(readonly response: RpcResponse) {
    super('the send answered an error');
  }
}

export function a2aRoutes(app: ApiApp, deps: RouteDeps): void {
  const cardFor = (c: Context<AppEnv>): AgentCard => agentCard(deps.a2a, deps.a2a.url ?? new URL('/a2a', c.req.url).href, deps.models());

  route(app, 'getAgentCard', (c) => c.json(AgentCard.toJSON(cardFor(c)) as object, 200, { 'cache-control': 'public, max-age=300' }));

  route(app, 'a2aJsonRpc', async (c) => {
    let body: unknown;
    try {
      body = await readJson(c, deps.limits.bodyLimitBytes);
    } catch (error) {
      // Not JSON (or not UTF-8, or nested too deep): JSON-RPC's parse error, nothing run.
      if (error instanceof RequestError && error.status === 400) return c.json(rpcError(null, -32700, error.message));
      throw error;
    }
    const id = requestId(body);
    const version = c.req.header('a2a-version');
    if (version !== undefined && version !== '1.0') {
      const error = new VersionNotSupportedError(`A2A-Version ${JSON.stringify(version.slice(0, 20))} is not served: this agent speaks 1.0`);
      return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
    const context = new ServerCallContext({ user: new Owner(c.get('owner')), requestedVersion: '1.0' });
    const transport = new JsonRpcTransportHandler(new PantoRequestHandler(deps, cardFor(c)));
    const call = () => transport.handle(body as Record<string, unknown>, context);
    if ((body as { method?: unknown }).method === 'SendMessage') return sendOnce(c, deps, body, id, call);
    const answer = await call();
    if (!(Symbol.asyncIterator in answer)) return c.json(answer);
    // A streamed send is a turn in the request log; a subscription follows one, and is not.
    if ((body as { method?: unknown }).method === 'SendStreamingMessage') c.set('turn', true);
    return streamAnswer(c, deps, answer, id);
  });
}

/**
 * `SendMessage` at most once per key: the `Idempotency-Key` header, else the message's
 * `messageId` (A2A's own: unique per message, so a retry of the same message is the same
 * send). A retry gets the first answer (under its own JSON-RPC id) and nothing runs again; the
 * same key with another message, or while the first still runs, is an error; a send that
 * answered an error is not kept.
 */
async function sendOnce(c: Context<AppEnv>, deps: RouteDeps, body: unknown, id: RpcResponse['id'], call: () => Promise<unknown>): Promise<Response> {
  const params = (body as { params?: unknown }).params;
  const messageId = (params as { message?: { messageId?: unknown } } | undefined)?.message?.messageId;
  const key = typeof messageId === 'string' && messageId !== '' ? `a2a-message-${createHash('sha256').update(messageId).digest('hex')}` : undefined;
  try {
    const response = await deps.idempotent(
      c,
      { a2a: 'SendMessage', params },
      async () => {
        const answer = (await call()) as RpcResponse;
        if (answer.error !== undefined) throw new RpcErrorAnswer(answer);
        return c.json(answer);
      },
      key,
    );
    if (c.get('idempotency') !== 'replayed') return response;
    const first = (await response.json()) as RpcResponse;
    return c.json({ ...first, id }, 200, { 'idempotent-replayed': 'true' });
  } catch (error) {
    if (error instanceof RpcErrorAnswer) return c.json(error.response);
    // The key's own refusals (reused, still running, not a key) and an outage of its records.
    return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(toA2AError(error, deps.report, 'A2A SendMessage')) });
  }
}

/**
 * A streamed answer as server-sent events, each a JSON-RPC response. Its first event is read
 * before the stream starts, so that a refusal (404, 409, 429 …) is a plain JSON-RPC error, as
 * the SDK's Express adapter answers it. A client that goes away stops the stream, not the turn.
 */
async function streamAnswer(
  c: Context<AppEnv>,
  deps: RouteDeps,
  answer: AsyncGenerator<RpcResponse, void, undefined>,
  id: RpcResponse['id'],
): Promise<Response> {
  let first: IteratorResult<RpcResponse, void>;
  try {
    first = await answer.next();
  } catch (error) {
    return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
  }
  let ended!: () => void;
  c.set('streamed', new Promise<void>((resolve) => (ended = resolve)));
  return streamSSE(c, async (stream) => {
    const sender = eventSender(c, stream, { stallMs: deps.limits.streamStallMs, keepAliveMs: deps.limits.streamKeepAliveMs });
    try {
      for (let next = first; !next.done; next = await answer.next()) {
        if (!(await sender.send('message', next.value))) break;
      }
    } catch (error) {
      await sender.send('error', { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    } finally {
      // Stops a follower's polling; a started turn runs on to its end (the generator waits for it).
      await answer.return(undefined);
      sender.finish();
      ended();
    }
  });
}

/** The request's JSON-RPC id, when it has a usable one (a string or an integer); else null. */
function requestId(body: unknown): RpcResponse['id'] {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

function rpcError(id: RpcResponse['id'], code: number, message: string): RpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
