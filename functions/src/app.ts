/**
 * The HTTP API, as a Hono app: the same app behind API Gateway (`handlers/api.ts`), behind
 * the streaming function URL (`handlers/stream.ts`) and in the local stack (`npm start`).
 * Routes parse and validate, call the session service, and shape JSON; every error
 * becomes a status in `errors.ts`.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { isValidSessionId } from '@panto/aws';
import { SessionNotFoundError, type Message, type StepResult, type ToolRegistry } from '@panto/core';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import type { AuthVerifier } from './auth.js';
import type { ServiceLimits } from './config.js';
import { invalidField, payloadTooLarge, RequestError, routeNotFound, toHttpError, type ErrorBody, type HttpError } from './errors.js';
import type { ProviderFactory } from './providers.js';
import { compactBody, createSessionBody, exportBody, listQuery, messageBody, parse } from './schemas.js';
import { SessionService, type SessionSummary, type TurnOutcome } from './sessions.js';
import { serviceTools } from './tools.js';

export interface AppDeps {
  dynamo: DynamoDBClient;
  tableName: string;
  s3: S3Client;
  bucket: string;
  /** Builds the model a request talks to (see `providerFactory`). */
  providerFactory: ProviderFactory;
  /** Establishes the caller; see `apiGatewayVerifier`, `jwksVerifier`, `hs256Verifier`. */
  verifier: AuthVerifier;
  limits: ServiceLimits;
  /** The tools each turn offers; `serviceTools()` when absent. Called once per request. */
  tools?: () => ToolRegistry;
  /** Sessions expire this long after their last write; never when absent. */
  sessionTtlSeconds?: number;
  /** Where internal failures (defects) are reported, with their cause; `console.error` when absent. Must not throw. */
  log?: (message: string, error: unknown) => void;
  /**
   * Where backend outages (DynamoDB or S3 unreachable, timing out, failing with 5xx, or
   * throttling) are reported: one short line each, no stack; `console.warn` when absent.
   * Must not throw.
   */
  logOutage?: (message: string) => void;
}

/** What the app reads from its runtime: the Lambda event, when there is one. */
export interface AppEnv {
  Bindings: { event?: unknown };
  Variables: { owner: string };
}

/**
 * Builds the API. Pure: no I/O until a request arrives, and no state kept between requests.
 *
 * @example
 * const app = createApp({ dynamo, tableName, s3, bucket, providerFactory, verifier, limits });
 * serve({ fetch: app.fetch, port: 3000 });          // or handle(app) in Lambda
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const log = deps.log ?? ((message: string, error: unknown) => console.error(`panto: ${message}`, error));
  const logOutage = deps.logOutage ?? ((message: string) => console.warn(`panto: ${message}`));
  /** Logs a failure as what it is: an outage in one line, a defect with its cause, a refusal not at all. */
  const report = (failure: HttpError, what: string, error: unknown): void => {
    if (failure.outage !== null) logOutage(`${what}: backend unavailable: ${failure.outage}`);
    else if (failure.internal) log(`${what} failed`, error);
  };
  const { limits } = deps;
  const sessions = new SessionService({
    dynamo: deps.dynamo,
    tableName: deps.tableName,
    s3: deps.s3,
    bucket: deps.bucket,
    providerFactory: deps.providerFactory,
    tools: deps.tools ?? serviceTools,
    log,
    logOutage,
    ...(deps.sessionTtlSeconds === undefined ? {} : { sessionTtlSeconds: deps.sessionTtlSeconds }),
  });

  const app = new Hono<AppEnv>();

  app.onError((error, c) => {
    const failure = toHttpError(error);
    report(failure, `${c.req.method} ${c.req.path}`, error);
    return c.json(failure.body, failure.status, retryAfter(failure));
  });
  app.notFound(() => {
    throw routeNotFound();
  });

  app.use(
    '*',
    bodyLimit({
      maxSize: limits.bodyLimitBytes,
      onError: () => {
        throw payloadTooLarge(limits.bodyLimitBytes);
      },
    }),
  );
  app.use('*', async (c, next) => {
    const { owner } = await deps.verifier({ authorization: c.req.header('authorization'), lambdaEvent: c.env?.event });
    c.set('owner', owner);
    await next();
  });
  // `?limit=1&limit=2` would otherwise be read as its first value: refuse it, on every route.
  app.use('*', async (c, next) => {
    for (const [name, values] of Object.entries(c.req.queries())) {
      if (values.length > 1) throw invalidField('query', name, 'given more than once');
    }
    await next();
  });

  app.post('/sessions', async (c) => {
    const body = parse('body', createSessionBody, await readJson(c, limits.bodyLimitBytes));
    let provider;
    try {
      provider = deps.providerFactory({
        ...(body.provider === undefined ? {} : { provider: body.provider }),
        ...(body.model === undefined ? {} : { model: body.model }),
      });
    } catch (error) {
      throw invalidField('body', 'provider', error instanceof Error ? error.message : 'unknown provider');
    }
    const chosen = body.provider !== undefined || body.model !== undefined;
    const session = await sessions.create(c.get('owner'), {
      provider,
      chosen,
      ...(body.system === undefined ? {} : { system: body.system }),
    });
    return c.json(sessionJson(session), 201);
  });

  app.get('/sessions', async (c) => {
    const query = parse('query', listQuery, c.req.query());
    const page = await sessions.list(c.get('owner'), {
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return c.json({ sessions: page.sessions.map(sessionJson), next_cursor: page.nextCursor });
  });

  app.get('/sessions/:id', async (c) => {
    const contents = await sessions.read(c.get('owner'), sessionId(c));
    return c.json({
      id: contents.id,
      messages: contents.messages,
      dangling_user: contents.danglingUser,
      active_model: contents.activeModel,
      usage: contents.usage,
    });
  });

  app.post('/sessions/:id/messages', async (c) => {
    const id = sessionId(c);
    const { text } = parse('body', messageBody, await readJson(c, limits.bodyLimitBytes));
    const deadline = AbortSignal.timeout(limits.deadlineMs);
    const outcome = await sessions.turn(c.get('owner'), id, text, {
      leaseMs: limits.leaseMs,
      signal: AbortSignal.any([deadline, c.req.raw.signal]),
    });
    const summary = turnJson(outcome, deadline);
    const failure = stepFailure(outcome.step);
    return failure ? c.json({ ...failure.body, ...summary }, failure.status, retryAfter(failure)) : c.json(summary);
  });

  app.post('/sessions/:id/messages/stream', async (c) => {
    const id = sessionId(c);
    const { text } = parse('body', messageBody, await readJson(c, limits.bodyLimitBytes));
    // Taken before the stream starts, so that 404 and 409 are real statuses.
    const lock = await sessions.lock(c.get('owner'), id, limits.streamLeaseMs);
    return streamSSE(c, async (stream) => {
      const deadline = AbortSignal.timeout(limits.streamDeadlineMs);
      const disconnected = new AbortController();
      stream.onAbort(() => disconnected.abort(new Error('the client disconnected')));
      let writes = Promise.resolve();
      const send = (event: string, data: object): void => {
        writes = writes.then(() => stream.writeSSE({ event, data: JSON.stringify(data) })).catch(() => {});
      };
      try {
        const outcome = await sessions.turnLocked(lock, text, {
          signal: AbortSignal.any([deadline, disconnected.signal]),
          onPrompt: (message) => send('message', { message }),
          receiver: (event) => {
            if (event.type === 'text-delta') send('text-delta', { delta: event.delta });
            if (event.type === 'persist') {
              for (const record of event.records) if (record.type === 'message') send('message', { message: record.message });
            }
          },
        });
        const { messages: _messages, ...end } = turnJson(outcome, deadline);
        const failure = stepFailure(outcome.step);
        send('end', failure ? { ...end, ...endFailure(failure) } : end);
      } catch (error) {
        const failure = toHttpError(error);
        report(failure, `streamed turn on ${id}`, error);
        send('end', { incomplete: true, ...endFailure(failure) });
      } finally {
        await lock.release();
        await writes;
      }
    });
  });

  app.post('/sessions/:id/compact', async (c) => {
    const id = sessionId(c);
    const { instructions } = parse('body', compactBody, await readJson(c, limits.bodyLimitBytes));
    const result = await sessions.compact(c.get('owner'), id, instructions, {
      leaseMs: limits.leaseMs,
      signal: AbortSignal.any([AbortSignal.timeout(limits.deadlineMs), c.req.raw.signal]),
    });
    return c.json({ summary: result.summary, usage: result.usage });
  });

  app.post('/sessions/:id/export', async (c) => {
    const id = sessionId(c);
    const body = parse('body', exportBody, await readJson(c, limits.bodyLimitBytes));
    const expiresIn = body.expires_in ?? limits.exportUrlTtlSeconds;
    const exported = await sessions.export(c.get('owner'), id, expiresIn);
    return c.json({ ...exported, expires_in: expiresIn });
  });

  app.delete('/sessions/:id', async (c) => {
    await sessions.delete(c.get('owner'), sessionId(c));
    return c.body(null, 204);
  });

  return app;
}

function sessionId(c: Context<AppEnv>): string {
  const id = c.req.param('id') ?? '';
  // Malformed ids (`..`, `/`, over-long) are unknown sessions, answered without a database call.
  if (!isValidSessionId(id)) throw new SessionNotFoundError(id);
  return id;
}

/** Decodes UTF-8 strictly: bytes that are not UTF-8 are refused, never turned into U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request body as JSON; `{}` when there is none. Bodies over the limit were refused by
 * the body-limit middleware; the check here covers a request whose length header lied. A
 * body that is not UTF-8 is refused (400 `invalid_encoding`), not stored with U+FFFD in
 * place of its bytes.
 */
async function readJson(c: Context<AppEnv>, limitBytes: number): Promise<unknown> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.byteLength > limitBytes) throw payloadTooLarge(limitBytes);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch (error) {
    throw new RequestError(400, 'invalid_encoding', 'the request body is not valid UTF-8', { cause: error });
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RequestError(400, 'invalid_json', 'the request body is not valid JSON');
  }
}

function sessionJson({ metadata, activeModel }: SessionSummary): {
  id: string;
  created_at: string;
  updated_at: string;
  active_model: SessionSummary['activeModel'];
  title: string | null;
  entry_count: number;
} {
  return {
    id: metadata.id,
    created_at: metadata.createdAt,
    updated_at: metadata.updatedAt,
    active_model: activeModel,
    title: metadata.title,
    entry_count: metadata.entryCount,
  };
}

/** The `Retry-After` header a failure answers with (every 503 has one). */
function retryAfter(failure: HttpError): Record<string, string> {
  return failure.retryAfterSeconds === null ? {} : { 'retry-after': String(failure.retryAfterSeconds) };
}

/** What a streamed turn's `end` event says of a failure: what the synchronous route would answer. */
function endFailure(failure: HttpError): { status: number; error: ErrorBody['error']; retry_after?: number } {
  return {
    status: failure.status,
    error: failure.body.error,
    ...(failure.retryAfterSeconds === null ? {} : { retry_after: failure.retryAfterSeconds }),
  };
}

/** The status a turn that failed (rather than stopped early) answers with; a provider failure is a 502. */
function stepFailure(step: StepResult): HttpError | undefined {
  return step.stopReason === 'error' && step.error ? toHttpError(step.error) : undefined;
}

/** Why a turn that did not finish stopped. */
type IncompleteReason = 'deadline' | 'cancelled' | 'provider_error' | 'max_provider_calls';

function turnJson(
  { messages, step }: TurnOutcome,
  deadline: AbortSignal,
): {
  messages: Message[];
  usage: StepResult['usage'];
  stop_reason: StepResult['stopReason'];
  incomplete: boolean;
  incomplete_reason?: IncompleteReason;
} {
  const summary = { messages, usage: step.usage, stop_reason: step.stopReason, incomplete: step.incomplete };
  if (!step.incomplete) return summary;
  return { ...summary, incomplete_reason: incompleteReason(step, deadline) };
}

function incompleteReason(step: StepResult, deadline: AbortSignal): IncompleteReason {
  if (step.stopReason === 'aborted') return deadline.aborted ? 'deadline' : 'cancelled';
  if (step.stopReason === 'error') return 'provider_error';
  return 'max_provider_calls';
}

