/**
 * @panto/functions — the HTTP app and the Lambda handlers' parts. The local stack's own
 * parts (emulator clients, HS256 tokens, local settings) are in `@panto/functions/local`.
 */
export { offeredModels, type OfferedModel, type OfferedModels, type OfferedProvider } from './agent/offered-models.js';
export { OUTPUT_TOKEN_CAP, providerResolver, type ProviderResolver } from './agent/provider-resolver.js';
export { SERVICE_MCP_OPTIONS, serviceMCPServers, toolsWithMCP } from './agent/service-mcp.js';
export { currentTimeTool, serviceTools } from './agent/service-tools.js';
export { approvalReason, withApproval } from './agent/tool-approvals.js';
export { parseMCPApprovals, type ApprovalRule, type MCPApprovalRules, type ServerApprovalRules } from './mcp-approvals.js';
export { openAPIDocument, type OpenAPIInfo } from './api/openapi.js';
export { API_ROUTES, type ApiResponse, type ApiRoute, type RouteDocs } from './api/route-table.js';
export { PUBLIC_ROUTES, ROUTE_LIST, ROUTES, routeKey, type HttpMethod, type OperationId, type RouteLine } from './api/routes.js';
export type { ApiApp, AppEnv } from './http/app-env.js';
export { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS } from './http/cors.js';
export { createApp, type AppDeps } from './app/create-app.js';
export { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './http/idempotency.js';
export { serviceApp } from './app/service-app.js';
export { handle, streamHandle } from './http/lambda-adapter.js';
export { apiGatewayVerifier } from './auth/api-gateway-verifier.js';
export { jwksVerifier } from './auth/jwks-verifier.js';
export type { AuthRequest, AuthVerifier, Principal } from './auth/verifier.js';
export { createAwsClients, type AwsClients } from './aws-clients.js';
export {
  DEFAULT_SERVICE_LIMITS,
  lambdaArchiveSweepConfig,
  lambdaConfig,
  lambdaIssuer,
  lambdaStorageConfig,
  type ArchiveSweepConfig,
  mcpSettings,
  usageLimits,
  type AwsEndpoints,
  type IssuerSettings,
  type MCPSettings,
  type ProviderConfig,
  type ServiceConfig,
  type ServiceLimits,
  type StorageConfig,
} from './config.js';
export { RequestError, toHttpError, type ErrorBody, type HttpError } from './errors.js';
export {
  archiveSweepHandler,
  runArchiveSweep,
  startArchiveSweeper,
  type ArchiveSweepDeps,
  type ArchiveSweepSummary,
  type RunningSweeper,
  type SweepContext,
} from './jobs/archive-sweep.js';
export {
  ttlCleanupHandler,
  ttlExpiredSessionId,
  type DynamoDBBatchResponse,
  type DynamoDBStreamEvent,
  type DynamoDBStreamRecord,
  type PurgeSession,
  type StreamAttributeValue,
  type TtlCleanupDeps,
} from './jobs/ttl-cleanup.js';
export type { RunningTurn, SessionContents, SessionServiceDeps, SessionSummary } from './services/session-context.js';
export type { SessionLock } from './services/session-lock.js';
export { SessionService } from './services/session-service.js';
export type { FollowEvent, TurnOutcome } from './services/turn-service.js';
export { lambdaTelemetry, METRICS_NAMESPACE, SERVICE_NAME, type LambdaTelemetry } from './telemetry/lambda-telemetry.js';
export { ownerHash, plainTelemetry, type RequestRecord, type Telemetry } from './telemetry/request-telemetry.js';
export { type TraceProtocol, type TraceSettings, traceSettings } from './telemetry/trace-settings.js';
export type { Tracing, TracingOptions } from './telemetry/tracer.js';
export { lambdaTracing, startTracing, tracingFromEnv } from './telemetry/tracing.js';
export { SERVICE_VERSION } from './version.js';
