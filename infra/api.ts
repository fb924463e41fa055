/**
 * The HTTP API: API Gateway (HTTP API) in front of the API function, a JWT authorizer in
 * front of every route but the health check and the OpenAPI document. API Gateway answers
 * preflights itself (OPTIONS never reaches the authorizer) and sets the CORS headers on every
 * answer. The routes that stream for minutes are the streaming function's (stream.ts).
 */
import { ROUTE_LIST, routeKey } from '@panto/functions/deployment';
import { authLink, identity } from './auth';
import { bedrockEnvironment, bedrockPermissions } from './bedrock';
import { API_MEMORY_MB, LAMBDA, STREAMING_NODE_OPTIONS } from './lambda';
import { router, STREAM_PATH } from './router';
import { turnSecrets } from './secrets';
import { cors, environment } from './settings';
import { bucket, table } from './storage';
import { streamFunction } from './stream';
import { tracingEnvironment, tracingFunction, tracingPermissions } from './tracing';

/**
 * Where the Agent Card (served here: it is public and quick) says the A2A JSON-RPC interface is:
 * the streaming function's, since it streams — under the stage's one origin when there is one.
 */
const A2A_URL = router ? $interpolate`${router.url}${STREAM_PATH}/a2a` : $interpolate`${streamFunction.url}a2a`;

/**
 * The routes API Gateway serves: every route of the service's manifest but those that stream
 * for minutes (`POST …/messages/stream`, `GET …/events`), which the streaming function's URL
 * serves instead; the public ones (the health check, the OpenAPI document) without the
 * authorizer. Derived, so a route is added in one place (functions/src/api/routes.ts).
 */
const GATEWAY_ROUTES = ROUTE_LIST.filter((route) => !route.streamed);
const apiFunction = new sst.aws.Function('PantoApiFunction', {
  handler: 'functions/src/handlers/api.handler',
  ...LAMBDA,
  // API Gateway gives up at 30 s; the turn stops itself at PANTO_DEADLINE_MS (25 s).
  timeout: '30 seconds',
  memory: `${API_MEMORY_MB} MB`,
  environment: { ...environment, ...STREAMING_NODE_OPTIONS, ...tracingEnvironment, ...bedrockEnvironment, PANTO_DEADLINE_MS: '25000', PANTO_A2A_URL: A2A_URL },
  // PantoAuth: the issuer the Agent Card names (the authorizer checks tokens here).
  link: [table, bucket, ...turnSecrets, authLink],
  ...tracingFunction,
  // The collector layer's X-Ray calls, and Bedrock's models when the stack uses Bedrock: exactly those (infra/bedrock.ts).
  permissions: [...tracingPermissions, ...bedrockPermissions],
});

export const api = new sst.aws.ApiGatewayV2('PantoApi', { cors });
const authorizer = api.addAuthorizer({ name: 'PantoJwt', jwt: { issuer: identity.issuer, audiences: [identity.audience] } });
for (const route of GATEWAY_ROUTES) {
  api.route(routeKey(route), apiFunction.arn, route.public ? {} : { auth: { jwt: { authorizer: authorizer.id } } });
}
