/**
 * @panto/functions — the HTTP app and the Lambda handlers' parts. The local stack's own
 * parts (emulator clients, HS256 tokens, local settings) are in `@panto/functions/local`.
 */
export { API_ROUTES, PUBLIC_ROUTES, type ApiResponse, type ApiRoute, type HttpMethod } from './api-routes.js';
export { createApp, CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS, type AppDeps, type AppEnv } from './app.js';
export { apiGatewayVerifier, jwksVerifier, type AuthRequest, type AuthVerifier, type Principal } from './auth.js';
export { createAwsClients, type AwsClients } from './clients.js';
export {
  archiveSweepHandler,
  runArchiveSweep,
  startArchiveSweeper,
  type ArchiveSweepDeps,
  type ArchiveSweepSummary,
  type RunningSweeper,
  type SweepContext,
} from './archive-sweep.js';
export {
  DEFAULT_LIMITS,
  lambdaArchiveSweepConfig,
  lambdaConfig,
  lambdaIssuer,
  lambdaStorageConfig,
  type ArchiveSweepConfig,
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
export { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './idempotency.js';
export { lambdaTelemetry, METRICS_NAMESPACE, SERVICE_NAME, type LambdaTelemetry } from './lambda-telemetry.js';
export { offeredModels, type OfferedModel, type OfferedModels, type OfferedProvider } from './models.js';
export { openAPIDocument, type OpenAPIInfo } from './openapi.js';
export { providerResolver, type ProviderResolver } from './providers.js';
export { serviceApp } from './service.js';
export {
  SessionService,
  type FollowEvent,
  type RunningTurn,
  type SessionContents,
  type SessionLock,
  type SessionSummary,
  type TurnOutcome,
} from './session-service.js';
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
export { ownerHash, plainTelemetry, type RequestRecord, type Telemetry } from './telemetry.js';
export { VERSION } from './version.js';
