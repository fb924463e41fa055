/**
 * `@panto/functions/deployment`: what the AWS deployment (sst.config.ts and infra/) reads of the
 * service, so that each fact is written once — the routes (API Gateway's are the manifest's
 * routes that are not streamed), the CORS rules, how a list setting is read, the catalog's
 * Bedrock default. Its export points at this TypeScript source under every condition: SST
 * bundles the config with esbuild, which compiles TypeScript, so a fresh clone deploys without
 * a build; everything it imports is plain data or a few lines. Not for Node at run time.
 */
export { DEFAULT_BEDROCK_MODEL } from '@panto/core/deployment';
export { ROUTE_LIST, routeKey, type RouteLine } from './api/routes.js';
export { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS } from './http/cors.js';
export { list } from './list-setting.js';
