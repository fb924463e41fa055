/** The app as a deployment configures it (`ServiceConfig`): what the Lambda handlers and the local stack serve. */
import type { Hono } from 'hono';
import type { MCPServers } from '@panto/core/mcp';
import type { AppEnv } from './app-env.js';
import { createApp, type AppDeps } from './create-app.js';
import type { AuthVerifier } from '../auth/verifier.js';
import { createAwsClients, type AwsClients } from '../aws-clients.js';
import type { ServiceConfig } from '../config.js';
import { offeredModels } from '../agent/offered-models.js';
import { providerResolver } from '../agent/provider-resolver.js';
import { serviceMCPServers, toolsWithMCP } from '../agent/service-tools.js';

/**
 * The app as configured: AWS clients (built once; share them), the configured providers,
 * the configured MCP servers' tools next to `current_time` (connected by the first turn,
 * kept while the process is warm), and `verifier` for the way requests arrive.
 *
 * @example
 * export const handler = handle(serviceApp(lambdaConfig(), apiGatewayVerifier(), lambdaTelemetry()));
 */
export function serviceApp(
  config: ServiceConfig,
  verifier: AuthVerifier,
  options: { clients?: AwsClients; mcp?: MCPServers } & Pick<AppDeps, 'tools' | 'log' | 'logOutage' | 'cache' | 'telemetry' | 'tracing'> = {},
): Hono<AppEnv> {
  const { dynamo, s3 } = options.clients ?? createAwsClients(config.aws);
  if (options.tracing) for (const client of [dynamo, s3]) options.tracing.instrument(client);
  const warn = options.logOutage ?? ((message: string) => console.warn(`panto: ${message}`));
  for (const problem of config.mcp.problems) warn(problem);
  const mcp = options.mcp ?? (config.mcp.servers.length > 0 ? serviceMCPServers(config.mcp.servers, warn) : undefined);
  const tools = options.tools ?? (mcp === undefined ? undefined : toolsWithMCP(mcp));
  return createApp({
    dynamo,
    tableName: config.tableName,
    s3,
    bucket: config.bucket,
    providers: providerResolver(config.provider),
    models: offeredModels(config.provider),
    verifier,
    limits: config.limits,
    corsOrigins: config.corsOrigins,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    usageLimits: config.usage,
    ...(tools === undefined ? {} : { tools }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    ...(options.tracing === undefined ? {} : { tracing: options.tracing }),
    ...(options.logOutage === undefined ? {} : { logOutage: options.logOutage }),
    ...(options.cache === undefined ? {} : { cache: options.cache }),
    ...(config.sessionTtlSeconds === undefined ? {} : { sessionTtlSeconds: config.sessionTtlSeconds }),
  });
}
