/**
 * The HTTP API, as a Hono app: the same app behind API Gateway (`handlers/api.ts`), behind
 * the streaming function URL (`handlers/stream.ts`) and in the local stack (`npm start`).
 * This module is the middleware every route shares (body limit, the caller, query rules,
 * errors); the routes live by family in `routes/`, and every error becomes a status in
 * `errors.ts`.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { DynamoIdempotencyStore, SessionCache, type IdempotencyStore, type LeaseClock } from '@panto/aws';
import type { ToolRegistry } from '@panto/core';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { PUBLIC_ROUTES } from './api-routes.js';
import type { AuthVerifier } from './auth.js';
import type { ServiceLimits } from './config.js';
import { invalidField, payloadTooLarge, routeNotFound, toHttpError, type HttpError } from './errors.js';
import { retryAfter, type App, type AppEnv, type RouteDeps } from './http.js';
import { idempotency } from './idempotency.js';
import { telemetryMiddleware, type Telemetry } from './telemetry.js';
import type { ProviderResolver } from './providers.js';
import { eventRoutes } from './routes/events.js';
import { exportRoutes } from './routes/exports.js';
import { metaRoutes } from './routes/meta.js';
import { modelRoutes } from './routes/models.js';
import { sessionRoutes } from './routes/sessions.js';
import { streamRoutes } from './routes/stream.js';
import { treeRoutes } from './routes/tree.js';
import { turnRoutes } from './routes/turns.js';
import type { OfferedModels } from './models.js';
import { SessionService } from './session-service.js';
import { serviceTools } from './tools.js';

export type { AppEnv } from './http.js';

export interface AppDeps {
  dynamo: DynamoDBClient;
  tableName: string;
  s3: S3Client;
  bucket: string;
  /** The provider a session's turns use (see `providerResolver`). */
  providers: ProviderResolver;
  /** Establishes the caller; see `apiGatewayVerifier`, `jwksVerifier`, and the local stack's `hs256Verifier`. */
  verifier: AuthVerifier;
  limits: ServiceLimits;
  /**
   * Origins a browser may call the API from (`PANTO_CORS_ORIGINS`; `*` for any); none when
   * absent. Preflights (`OPTIONS`) are answered on every route without a token either way.
   */
  corsOrigins?: readonly string[];
  /** The tools each turn offers; `serviceTools()` when absent. Called once per turn (or compaction); must not reject. */
  tools?: () => ToolRegistry | Promise<ToolRegistry>;
  /** Sessions expire this long after their last write; never when absent. */
  sessionTtlSeconds?: number;
  /**
   * Where `Idempotency-Key` records live; records in the table (and answers too big for an
   * item in the bucket, under `idempotency/`), kept `idempotencyTtlSeconds`, when absent.
   */
  idempotency?: IdempotencyStore;
  /** How long an `Idempotency-Key` answers retries (default 24 h). */
  idempotencyTtlSeconds?: number;
  /**
   * Sessions read by this process, kept for the next request (a new one per app when
   * absent). The only state the app keeps between requests; see `SessionCache`.
   */
  cache?: SessionCache;
  /** Where each request's record goes (logs and metrics); nowhere when absent. */
  telemetry?: Telemetry;
  /** Where internal failures (defects) are reported, with their cause; `console.error` when absent. Must not throw. */
  log?: (message: string, error: unknown) => void;
  /**
   * Where backend outages (DynamoDB or S3 unreachable, timing out, failing with 5xx, or
   * throttling) are reported: one short line each, no stack; `console.warn` when absent.
   * Must not throw.
   */
  logOutage?: (message: string) => void;
  /** The clock turn leases are taken, renewed and judged by (the system clock when absent); tests freeze it. */
  clock?: LeaseClock;
  /**
   * What `GET /models` answers (`offeredModels(config.provider)`); when absent, the default
   * provider with its default model only.
   */
  models?: OfferedModels;
}

/**
 * Builds the API. No I/O until a request arrives; between requests it keeps only its
 * session cache.
 *
 * @example
 * const app = createApp({ dynamo, tableName, s3, bucket, providers, verifier, limits });
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
    providers: deps.providers,
    cache: deps.cache ?? new SessionCache(),
    tools: deps.tools ?? serviceTools,
    log,
    logOutage,
    lease: { leaseMs: limits.leaseMs, renewEveryMs: limits.leaseRenewMs },
    ...(deps.clock === undefined ? {} : { clock: deps.clock }),
    ...(deps.sessionTtlSeconds === undefined ? {} : { sessionTtlSeconds: deps.sessionTtlSeconds }),
  });

  const app: App = new Hono<AppEnv>();

  app.onError((error, c) => {
    const failure = toHttpError(error);
    c.set('errorCode', failure.body.error.code);
    report(failure, `${c.req.method} ${c.req.path}`, error);
    // The body too large was not read: the connection cannot carry another request (a Node
    // server drops it after a short drain), so the answer says so.
    const close = failure.status === 413 ? { connection: 'close' } : {};
    return c.json(failure.body, failure.status, { ...retryAfter(failure), ...close });
  });
  app.notFound(() => {
    throw routeNotFound();
  });

  if (deps.telemetry) app.use('*', telemetryMiddleware(deps.telemetry));
  // Then: a preflight is answered here, before any token is asked for, and every answer
  // (errors too) carries the CORS headers a browser needs to read it.
  app.use('*', cors(corsOptions(deps.corsOrigins ?? [])));
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
    if (!PUBLIC_ROUTES.has(`${c.req.method} ${c.req.path}`)) {
      const { owner } = await deps.verifier({ authorization: c.req.header('authorization'), lambdaEvent: c.env?.event });
      c.set('owner', owner);
    }
    await next();
  });
  // `?limit=1&limit=2` would otherwise be read as its first value: refuse it, on every route.
  app.use('*', async (c, next) => {
    for (const [name, values] of Object.entries(c.req.queries())) {
      if (values.length > 1) throw invalidField('query', name, 'given more than once');
    }
    await next();
  });

  const idempotencyStore =
    deps.idempotency ??
    new DynamoIdempotencyStore({
      client: deps.dynamo,
      tableName: deps.tableName,
      s3: { client: deps.s3, bucket: deps.bucket },
      ...(deps.idempotencyTtlSeconds === undefined ? {} : { ttlSeconds: deps.idempotencyTtlSeconds }),
    });
  // A key is held for as long as the session's lease: a request that died frees both together.
  const idempotent = idempotency(idempotencyStore, { inProgressMs: limits.leaseMs, report });
  let models = deps.models;
  const offered = (): OfferedModels => {
    if (models === undefined) {
      const { name, model } = deps.providers({});
      models = { default: { provider: name, model }, providers: [{ name, default_model: model, models: [{ id: model, status: null }], any_model: false }] };
    }
    return models;
  };
  const routeDeps: RouteDeps = { sessions, providers: deps.providers, limits, report, logOutage, idempotent, models: offered };
  metaRoutes(app, routeDeps);
  modelRoutes(app, routeDeps);
  sessionRoutes(app, routeDeps);
  turnRoutes(app, routeDeps);
  streamRoutes(app, routeDeps);
  eventRoutes(app, routeDeps);
  exportRoutes(app, routeDeps);
  treeRoutes(app, routeDeps);
  return app;
}

/** Request headers a browser may send; response headers its script may read. */
export const CORS_ALLOW_HEADERS = ['authorization', 'content-type', 'idempotency-key'] as const;
export const CORS_EXPOSE_HEADERS = ['retry-after', 'idempotent-replayed'] as const;
/** The methods an actual request may use (a preflight's own OPTIONS needs no listing). */
export const CORS_ALLOW_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** How long a browser may cache a preflight's answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

/** The CORS rules for `origins` (exact origins, or `*` for any). No credentials: the API takes bearer tokens, not cookies. */
function corsOptions(origins: readonly string[]): Parameters<typeof cors>[0] {
  const any = origins.includes('*');
  return {
    origin: (origin) => (any ? '*' : origins.includes(origin) ? origin : null),
    allowMethods: [...CORS_ALLOW_METHODS],
    allowHeaders: [...CORS_ALLOW_HEADERS],
    exposeHeaders: [...CORS_EXPOSE_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
  };
}
