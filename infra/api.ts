/**
 * The HTTP API: API Gateway (HTTP API) in front of the API function, a JWT authorizer in
 * front of every route but the health check and the OpenAPI document. API Gateway answers
 * preflights itself (OPTIONS never reaches the authorizer) and sets the CORS headers on every
 * answer. The routes that stream for minutes are the streaming function's (stream.ts).
 */
import { ROUTE_LIST, routeKey } from '@panto/functions/deployment';
import { identity } from './auth';
import { bedrockEnvironment, bedrockPermissions } from './bedrock';
import { LAMBDA, STREAMING_NODE_OPTIONS } from './lambda';
import { turnSecrets } from './secrets';
import { cors, environment } from './settings';
import { bucket, table } from './storage';
import { tracingEnvironment, tracingFunction, tracingPermissions } from './tracing';

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
  api.route(routeKey(route), apiFunction.arn, route.public ? {} : { auth: { jwt: { authorizer: authorizer.id } } });
}
