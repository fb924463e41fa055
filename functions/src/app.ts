/**
 * The HTTP API, as a Hono app: the same app behind API Gateway (`handlers/api.ts`), behind
 * the streaming function URL (`handlers/stream.ts`) and in the local stack (`npm start`).
 * This module is the middleware every route shares (body limit, the caller, query rules,
 * errors); the routes live by family in `routes/`, and every error becomes a status in
 * `errors.ts`.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SessionCache } from '@panto/aws';
import type { ToolRegistry } from '@panto/core';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AuthVerifier } from './auth.js';
import type { ServiceLimits } from './config.js';
import { invalidField, payloadTooLarge, routeNotFound, toHttpError, type HttpError } from './errors.js';
import { retryAfter, type App, type AppEnv, type RouteDeps } from './http.js';
import type { ProviderResolver } from './providers.js';
import { exportRoutes } from './routes/exports.js';
import { sessionRoutes } from './routes/sessions.js';
import { streamRoutes } from './routes/stream.js';
import { turnRoutes } from './routes/turns.js';
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
  /** The tools each turn offers; `serviceTools()` when absent. Called once per turn (or compaction); must not reject. */
  tools?: () => ToolRegistry | Promise<ToolRegistry>;
  /** Sessions expire this long after their last write; never when absent. */
  sessionTtlSeconds?: number;
  /**
   * Sessions read by this process, kept for the next request (a new one per app when
   * absent). The only state the app keeps between requests; see `SessionCache`.
   */
  cache?: SessionCache;
  /** Where internal failures (defects) are reported, with their cause; `console.error` when absent. Must not throw. */
  log?: (message: string, error: unknown) => void;
  /**
   * Where backend outages (DynamoDB or S3 unreachable, timing out, failing with 5xx, or
   * throttling) are reported: one short line each, no stack; `console.warn` when absent.
   * Must not throw.
   */
  logOutage?: (message: string) => void;
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
    ...(deps.sessionTtlSeconds === undefined ? {} : { sessionTtlSeconds: deps.sessionTtlSeconds }),
  });

  const app: App = new Hono<AppEnv>();

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

  const routeDeps: RouteDeps = { sessions, providers: deps.providers, limits, report };
  sessionRoutes(app, routeDeps);
  turnRoutes(app, routeDeps);
  streamRoutes(app, routeDeps);
  exportRoutes(app, routeDeps);
  return app;
}
