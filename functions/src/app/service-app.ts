/** The app as a deployment configures it (`ServiceConfig`): what the Lambda handlers and the local stack serve. */
import type { Hono } from 'hono';
import { addSecret, type ToolRegistry } from '@panto/core/agent-kit';
import type { MCPServers } from '@panto/core/mcp';
import type { AppEnv } from '../http/app-env.js';
import { createApp, type AppDeps } from './create-app.js';
import type { AuthVerifier } from '../auth/verifier.js';
import type { AwsClients } from '../aws-clients.js';
import { serviceAwsClients } from '../deferred-s3.js';
import type { MCPSettings, ServiceConfig } from '../config.js';
import { offeredModels } from '../agent/offered-models.js';
import { providerResolver } from '../agent/provider-resolver.js';

/**
 * The app as configured: AWS clients (built once, S3's at its first call — see
 * `serviceAwsClients`; or `options.clients`, shared), the configured providers,
 * the configured MCP servers' tools next to `current_time` (connected by the first turn,
 * kept while the process is warm), and `verifier` for the way requests arrive.
 *
 * @example
 * export const handler = handle(serviceApp(lambdaConfig(), apiGatewayVerifier(), lambdaTelemetry()));
 */
export function serviceApp(
  config: ServiceConfig,
  verifier: AuthVerifier,
  options: { clients?: AwsClients; mcp?: MCPServers } & Pick<AppDeps, 'tools' | 'log' | 'logOutage' | 'cache' | 'telemetry' | 'tracing' | 'a2a'> = {},
): Hono<AppEnv> {
  // The keys this server holds never leave it in an error, a trace or a log, whatever their shape.
  for (const key of Object.values(config.provider.apiKeys)) addSecret(key);
  for (const server of config.mcp.servers) for (const value of Object.values(server.headers)) addSecret(value);
  const tracing = options.tracing;
  const { dynamo, s3 } = options.clients ?? serviceAwsClients(config.aws, tracing && ((client) => tracing.instrument(client)));
  if (tracing && options.clients) for (const client of [dynamo, s3]) tracing.instrument(client);
  const warn = options.logOutage ?? ((message: string) => console.warn(`panto: ${message}`));
  for (const problem of config.mcp.problems) warn(problem);
  const tools = options.tools ?? mcpTools(options.mcp, config.mcp, warn);
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
    modelPrices: config.modelPrices,
    ...(options.a2a === undefined ? {} : { a2a: options.a2a }),
    ...(tools === undefined ? {} : { tools }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    ...(options.tracing === undefined ? {} : { tracing: options.tracing }),
    ...(options.logOutage === undefined ? {} : { logOutage: options.logOutage }),
    ...(options.cache === undefined ? {} : { cache: options.cache }),
    ...(config.sessionTtlSeconds === undefined ? {} : { sessionTtlSeconds: config.sessionTtlSeconds }),
  });
}

/**
 * `toolsWithMCP` of `mcp`, else of the configured servers (`serviceMCPServers`); undefined
 * when there are neither. The MCP client's code (agent/service-mcp.ts) is loaded by the
 * first turn, not at a cold start; the servers are built then, once, for the warm process.
 */
function mcpTools(mcp: MCPServers | undefined, settings: MCPSettings, warn: (message: string) => void): (() => Promise<ToolRegistry>) | undefined {
  if (mcp === undefined && settings.servers.length === 0) return undefined;
  let tools: Promise<() => Promise<ToolRegistry>> | undefined;
  return async () => {
    tools ??= import('../agent/service-mcp.js').then(({ serviceMCPServers, toolsWithMCP }) =>
      toolsWithMCP(mcp ?? serviceMCPServers(settings.servers, warn), settings.approvals),
    );
    return (await tools)();
  };
}
