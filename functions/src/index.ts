/**
 * @panto/functions — the HTTP app and the Lambda handlers' parts. The local stack's own
 * parts (emulator clients, HS256 tokens, local settings) are in `@panto/functions/local`.
 */
export { createApp, type AppDeps, type AppEnv } from './app.js';
export { apiGatewayVerifier, jwksVerifier, type AuthRequest, type AuthVerifier, type Principal } from './auth.js';
export { createAwsClients, type AwsClients } from './clients.js';
export {
  DEFAULT_LIMITS,
  lambdaConfig,
  lambdaIssuer,
  lambdaStorageConfig,
  mcpSettings,
  type AwsEndpoints,
  type IssuerSettings,
  type MCPSettings,
  type ProviderConfig,
  type ServiceConfig,
  type ServiceLimits,
  type StorageConfig,
} from './config.js';
export { RequestError, toHttpError, type ErrorBody, type HttpError } from './errors.js';
export { providerResolver, type ProviderResolver } from './providers.js';
export { serviceApp } from './service.js';
export { SessionService, type SessionContents, type SessionSummary, type TurnOutcome } from './session-service.js';
export { currentTimeTool, SERVICE_MCP_OPTIONS, serviceMCPServers, serviceTools, toolsWithMCP } from './tools.js';
export {
  ttlCleanupHandler,
  ttlExpiredSessionId,
  type DynamoDBBatchResponse,
  type DynamoDBStreamEvent,
  type DynamoDBStreamRecord,
  type PurgeSession,
  type StreamAttributeValue,
  type TtlCleanupDeps,
} from './ttl-cleanup.js';
