/**
 * The HTTP API, as a Hono app: the same app behind API Gateway (`handlers/api.ts`), behind
 * the streaming function URL (`handlers/stream.ts`) and in the local stack (`npm start`).
 * This module builds it: the middleware every route shares (body limit, CORS, the caller,
 * query rules, errors), then the routes, which live by family in `routes/`; every error
 * becomes a status in `errors.ts`.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { DynamoIdempotencyStore, SessionCache, type IdempotencyStore, type LeaseClock, type OwnerLimits } from '@panto/aws/service';
import type { ToolRegistry } from '@panto/core';
import { redactError, redactSecrets } from '@panto/core/agent-kit';
import type { A2ASettings } from '../a2a-settings.js';
import { Hono, type MiddlewareHandler } from 'hono';
import { PUBLIC_ROUTES, ROUTES, routeKey } from '../api/routes.js';
import type { AuthVerifier } from '../auth/verifier.js';
import type { ServiceLimits } from '../config.js';
import { invalidField, retryAfter, routeNotFound, toHttpError, type HttpError } from '../errors.js';
import type { ApiApp, AppEnv } from '../http/app-env.js';
import { bodyLimitOf } from '../http/body-limit.js';
import { corsMiddleware } from '../http/cors-middleware.js';
import { idempotency } from '../http/idempotency.js';
import { telemetryMiddleware, type Telemetry } from '../telemetry/request-telemetry.js';
import type { Tracing } from '../telemetry/tracer.js';
import type { ProviderResolver } from '../agent/provider-resolver.js';
import type { RouteDeps } from '../routes/route-deps.js';
import { eventRoutes } from '../routes/events.js';
import { exportRoutes } from '../routes/exports.js';
import { metaRoutes } from '../routes/meta.js';
import { modelRoutes } from '../routes/models.js';
import { sessionRoutes } from '../routes/sessions.js';
import { streamRoutes } from '../routes/stream.js';
import { approvalRoutes } from '../routes/approvals.js';
import { chatRoutes } from '../routes/chat/chat-routes.js';
import { a2aRoutes } from '../routes/a2a.js';
import { treeRoutes } from '../routes/tree.js';
import { turnRoutes } from '../routes/turns.js';
import { usageRoutes } from '../routes/usage.js';
import type { ModelPriceTable } from '../model-prices.js';
import type { OfferedModels } from '../agent/offered-models.js';
import type { SessionServiceDeps } from '../services/session-context.js';
import { SessionService } from '../services/session-service.js';
import { serviceTools } from '../agent/service-tools.js';

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
  /** Spans for each request, turn, provider call, tool call and store call (see `lambdaTracing`); none when absent. */
  tracing?: Tracing;
  /** Where internal failures (defects) are reported, with their cause; `console.error` when absent. Must not throw. */
  log?: (message: string, error: unknown) => void;
  /**
   * Where backend outages (DynamoDB or S3 unreachable, timing out, failing with 5xx, or
   * throttling) are reported: one short line each, no stack; `console.warn` when absent.
   * Must not throw.
   */
  logOutage?: (message: string) => void;
  /** The clock turn leases are taken, renewed and judged by (the system clock when absent); tests freeze it. The usage ledger's days and minutes too. */
  clock?: LeaseClock;
  /** The limits of an owner without overrides (`PANTO_BUDGET_DAILY_USD` …; see `usageLimits`); none when absent. */
  usageLimits?: OwnerLimits;
  /** The operator's model prices (`PANTO_MODEL_PRICES`), which the usage ledger counts before the catalog's; none when absent. */
  modelPrices?: ModelPriceTable;
  /**
   * What `GET /models` answers (`offeredModels(config.provider)`); when absent, the default
   * provider with its default model only.
   */
  models?: OfferedModels;
  /**
   * How the Agent Card describes A2A here (`PANTO_A2A_URL`, the issuer; see `lambdaA2A`): the
   * interface's URL (the card's own origin + `/a2a` when absent) and the OIDC issuer whose
   * tokens it takes (none: bearer JWTs, as the local stack's).
   */
  a2a?: A2ASettings;
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
  const logSink = deps.log ?? ((message: string, error: unknown) => console.error(`panto: ${message}`, error));
  const outageSink = deps.logOutage ?? ((message: string) => console.warn(`panto: ${message}`));
  // What leaves the process names no credential (a provider's error may quote the key it was sent).
  const log = (message: string, error: unknown): void => logSink(redactSecrets(message), redactError(error));
  const logOutage = (message: string): void => outageSink(redactSecrets(message));
  /** Logs a failure as what it is: an outage in one line, a defect with its cause, a refusal not at all. */
  const report = (failure: HttpError, what: string, error: unknown): void => {
    if (failure.outage !== null) logOutage(`${what}: backend unavailable: ${failure.outage}`);
    else if (failure.internal) log(`${what} failed`, error);
  };
  const { limits } = deps;

  const app: ApiApp = new Hono<AppEnv>();
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

  if (deps.tracing) app.use('*', deps.tracing.middleware);
  if (deps.telemetry) app.use('*', telemetryMiddleware(deps.telemetry));
  // Then: a preflight is answered here, before any token is asked for, and every answer
  // (errors too) carries the CORS headers a browser needs to read it.
  app.use('*', corsMiddleware(deps.corsOrigins ?? []));
  const requestLimit = bodyLimitOf(limits.bodyLimitBytes);
  // The AI SDK's transport sends the whole chat each time: POST /chat has room for it.
  const chatLimit = bodyLimitOf(limits.chatBodyLimitBytes);
  const chatKey = routeKey(ROUTES.chat);
  app.use('*', (c, next) => (`${c.req.method} ${c.req.path}` === chatKey ? chatLimit(c, next) : requestLimit(c, next)));
  app.use('*', authenticate(deps.verifier));
  app.use('*', refuseRepeatedQuery);

  const { admin, tree, transfer, turns, usage } = sessionService(deps, log, logOutage);
  const routeDeps: RouteDeps = {
    admin,
    tree,
    transfer,
    turns,
    usage,
    providers: deps.providers,
    limits,
    report,
    logOutage,
    // A key is held for as long as the session's lease: a request that died frees both together.
    idempotent: idempotency(idempotencyStore(deps), { inProgressMs: limits.leaseMs, report }),
    models: offeredModelsOf(deps),
    a2a: deps.a2a ?? {},
  };
  metaRoutes(app, routeDeps);
  modelRoutes(app, routeDeps);
  sessionRoutes(app, routeDeps);
  turnRoutes(app, routeDeps);
  streamRoutes(app, routeDeps);
  approvalRoutes(app, routeDeps);
  chatRoutes(app, routeDeps);
  eventRoutes(app, routeDeps);
  exportRoutes(app, routeDeps);
  treeRoutes(app, routeDeps);
  usageRoutes(app, routeDeps);
  a2aRoutes(app, routeDeps);
  return app;
}

/** Establishes the caller of every route but the public ones (`owner`). */
function authenticate(verifier: AuthVerifier): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!PUBLIC_ROUTES.has(`${c.req.method} ${c.req.path}`)) {
      const { owner } = await verifier({ authorization: c.req.header('authorization'), lambdaEvent: c.env?.event });
      c.set('owner', owner);
    }
    await next();
  };
}

/** `?limit=1&limit=2` would otherwise be read as its first value: refuse it, on every route. */
const refuseRepeatedQuery: MiddlewareHandler<AppEnv> = async (c, next) => {
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (values.length > 1) throw invalidField('query', name, 'given more than once');
  }
  await next();
};

/** The session service on the app's table, bucket, providers and clock (the app's other dependencies come along unread). */
function sessionService(deps: AppDeps, log: SessionServiceDeps['log'], logOutage: SessionServiceDeps['logOutage']): SessionService {
  return new SessionService({
    ...deps,
    cache: deps.cache ?? new SessionCache(),
    tools: deps.tools ?? serviceTools,
    log,
    logOutage,
    lease: { leaseMs: deps.limits.leaseMs, renewEveryMs: deps.limits.leaseRenewMs },
    ...(deps.tracing === undefined ? {} : { observeAgent: deps.tracing.observeAgent }),
  });
}

function idempotencyStore(deps: AppDeps): IdempotencyStore {
  return (
    deps.idempotency ??
    new DynamoIdempotencyStore({
      client: deps.dynamo,
      tableName: deps.tableName,
      s3: { client: deps.s3, bucket: deps.bucket },
      ...(deps.idempotencyTtlSeconds === undefined ? {} : { ttlSeconds: deps.idempotencyTtlSeconds }),
    })
  );
}

/** What `GET /models` answers: `deps.models`, or the default provider with its default model only (worked out on first use). */
function offeredModelsOf(deps: AppDeps): () => OfferedModels {
  let models = deps.models;
  return () => {
    if (models === undefined) {
      const { name, model } = deps.providers({});
      models = { default: { provider: name, model }, providers: [{ name, default_model: model, models: [{ id: model, status: null }], any_model: false }] };
    }
    return models;
  };
}
