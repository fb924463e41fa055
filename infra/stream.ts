/**
 * The streaming function behind a function URL (Lambda response streaming), for the routes
 * that stream for minutes: a streamed turn and following one. A function URL has no JWT
 * authorizer: the function verifies tokens itself, against the issuer `PantoAuth` names.
 * Lambda answers preflights on a function URL itself, before the function runs.
 */
import { authLink } from './auth';
import { bedrockEnvironment, bedrockPermissions } from './bedrock';
import { API_MEMORY_MB, LAMBDA, STREAMING_NODE_OPTIONS } from './lambda';
import { turnSecrets } from './secrets';
import { cors, environment } from './settings';
import { bucket, table } from './storage';
import { tracingEnvironment, tracingFunction, tracingPermissions } from './tracing';

export const streamFunction = new sst.aws.Function('PantoStreamFunction', {
  handler: 'functions/src/handlers/stream.handler',
  ...LAMBDA,
  timeout: '15 minutes',
  memory: `${API_MEMORY_MB} MB`,
  streaming: true,
  url: { authorization: 'none', cors },
  environment: { ...environment, ...STREAMING_NODE_OPTIONS, ...tracingEnvironment, ...bedrockEnvironment, PANTO_STREAM_DEADLINE_MS: '840000' },
  link: [table, bucket, ...turnSecrets, authLink],
  ...tracingFunction,
  // The collector layer's X-Ray calls, and Bedrock's models when the stack uses Bedrock: exactly those (infra/bedrock.ts).
  permissions: [...tracingPermissions, ...bedrockPermissions],
});
