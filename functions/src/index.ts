/**
 * @panto/functions — the HTTP app and the Lambda handlers' parts. The local stack's own
 * parts (emulator clients, HS256 tokens, local settings) are in `@panto/functions/local`.
 */
export { createApp, type AppDeps, type AppEnv } from './app.js';
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
  type AwsEndpoints,
  type IssuerSettings,
  type ProviderConfig,
  type ServiceConfig,
  type ServiceLimits,
  type StorageConfig,
} from './config.js';
export { RequestError, toHttpError, type ErrorBody, type HttpError } from './errors.js';
export { providerResolver, type ProviderResolver } from './providers.js';
export { serviceApp } from './service.js';
export { SessionService, type SessionContents, type SessionSummary, type TurnOutcome } from './session-service.js';
export { currentTimeTool, serviceTools } from './tools.js';
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
