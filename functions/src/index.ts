export { createApp, type AppDeps, type AppEnv } from './app.js';
export {
  apiGatewayVerifier,
  hs256Verifier,
  jwksVerifier,
  LOCAL_AUDIENCE,
  LOCAL_ISSUER,
  readLocalSecret,
  signLocalToken,
  type AuthRequest,
  type AuthVerifier,
  type Principal,
} from './auth.js';
export { createAwsClients, type AwsClients } from './clients.js';
export {
  DEFAULT_LIMITS,
  lambdaConfig,
  lambdaIssuer,
  lambdaStorageConfig,
  localSecretFile,
  localSettings,
  type AwsEndpoints,
  type IssuerSettings,
  type LocalSettings,
  type ProviderSettings,
  type ServiceConfig,
  type ServiceLimits,
  type StorageConfig,
} from './config.js';
export { NothingToCompactError, RequestError, toHttpError, type ErrorBody, type HttpError } from './errors.js';
export { providerFactory, type ModelSelection, type ProviderFactory } from './providers.js';
export { serviceApp } from './service.js';
export { SessionService, type SessionContents, type SessionSummary, type TurnOutcome } from './sessions.js';
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
