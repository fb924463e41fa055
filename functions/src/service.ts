import type { Hono } from 'hono';
import { createApp, type AppDeps, type AppEnv } from './app.js';
import type { AuthVerifier } from './auth.js';
import { createAwsClients, type AwsClients } from './clients.js';
import type { ServiceConfig } from './config.js';
import { providerResolver } from './providers.js';

/**
 * The app as configured: AWS clients (built once; share them), the configured providers,
 * and `verifier` for the way requests arrive.
 *
 * @example
 * export const handler = handle(serviceApp(lambdaConfig(), apiGatewayVerifier(), lambdaTelemetry()));
 */
export function serviceApp(
  config: ServiceConfig,
  verifier: AuthVerifier,
  options: { clients?: AwsClients } & Pick<AppDeps, 'tools' | 'log' | 'logOutage' | 'cache' | 'telemetry'> = {},
): Hono<AppEnv> {
  const { dynamo, s3 } = options.clients ?? createAwsClients(config.aws);
  return createApp({
    dynamo,
    tableName: config.tableName,
    s3,
    bucket: config.bucket,
    providers: providerResolver(config.provider),
    verifier,
    limits: config.limits,
    corsOrigins: config.corsOrigins,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    ...(options.logOutage === undefined ? {} : { logOutage: options.logOutage }),
    ...(options.cache === undefined ? {} : { cache: options.cache }),
    ...(config.sessionTtlSeconds === undefined ? {} : { sessionTtlSeconds: config.sessionTtlSeconds }),
  });
}
