/**
 * The HTTP API: API Gateway (HTTP API) in front of the API function, a JWT authorizer in
 * front of every route but the health check and the OpenAPI document. API Gateway answers
 * preflights itself (OPTIONS never reaches the authorizer) and sets the CORS headers on every
 * answer. The routes that stream for minutes are the streaming function's (stream.ts).
 */
import { identity } from './auth';
import { bedrockEnvironment, bedrockPermissions } from './bedrock';
import { LAMBDA, STREAMING_NODE_OPTIONS } from './lambda';
import { turnSecrets } from './secrets';
import { cors, environment } from './settings';
import { bucket, table } from './storage';
import { tracingEnvironment, tracingFunction, tracingPermissions } from './tracing';

/**
 * The API's routes behind the authorizer; every one is served by the API function. The routes
 * that stream for minutes (`POST …/messages/stream`, `GET …/events`) are served by the
 * streaming function's URL instead.
 */
const GATEWAY_ROUTES = [
  'GET /models',
  'POST /sessions',
  'GET /sessions',
  'GET /sessions/{id}',
  'POST /sessions/{id}/messages',
  'POST /sessions/{id}/compact',
  'POST /sessions/{id}/export',
  'GET /sessions/{id}/exports',
  'POST /sessions/{id}/stop',
  'DELETE /sessions/{id}',
  'PATCH /sessions/{id}',
  'GET /sessions/{id}/entries',
  'GET /sessions/{id}/tree',
  'PUT /sessions/{id}/leaf',
  'POST /sessions/{id}/fork',
  'POST /sessions/import',
  'GET /usage',
] as const;
/** Routes answered without a token (functions/src/api/route-table.ts marks them `public`). */
const PUBLIC_GATEWAY_ROUTES = ['GET /health', 'GET /openapi.json'] as const;

const apiFunction = new sst.aws.Function('PantoApiFunction', {
  handler: 'functions/src/handlers/api.handler',
  ...LAMBDA,
  // API Gateway gives up at 30 s; the turn stops itself at PANTO_DEADLINE_MS (25 s).
  timeout: '30 seconds',
  memory: '1024 MB',
  environment: { ...environment, ...STREAMING_NODE_OPTIONS, ...tracingEnvironment, ...bedrockEnvironment, PANTO_DEADLINE_MS: '25000' },
  link: [table, bucket, ...turnSecrets],
  ...tracingFunction,
  // The collector layer's X-Ray calls, and Bedrock's models when the stack uses Bedrock: exactly those (infra/bedrock.ts).
  permissions: [...tracingPermissions, ...bedrockPermissions],
});

export const api = new sst.aws.ApiGatewayV2('PantoApi', { cors });
const authorizer = api.addAuthorizer({ name: 'PantoJwt', jwt: { issuer: identity.issuer, audiences: [identity.audience] } });
for (const route of GATEWAY_ROUTES) {
  api.route(route, apiFunction.arn, { auth: { jwt: { authorizer: authorizer.id } } });
}
for (const route of PUBLIC_GATEWAY_ROUTES) api.route(route, apiFunction.arn);
