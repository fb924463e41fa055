/// <reference path="./.sst/platform/config.d.ts" />
/**
 * Wiring only: the sessions table, the bucket for exports and offloaded messages, the HTTP
 * API (JWT authorizer in front of every route) and its function, the streaming function
 * behind a function URL, the table's stream consumer that purges what TTL-expired sessions
 * leave behind, and the provider keys as secrets. The functions read all of it
 * through `Resource.X` (functions/src/config.ts).
 *
 * Deploy-time settings (environment of `sst deploy`):
 * - PANTO_JWT_ISSUER, PANTO_JWT_AUDIENCE (required): the identity provider whose tokens the
 *   API accepts; PANTO_JWT_JWKS_URL when its keys are not at `<issuer>/.well-known/jwks.json`.
 * - PANTO_PROVIDER, PANTO_MODEL: the default model (keys: `sst secret set AnthropicApiKey …`).
 * - PANTO_SESSION_TTL_DAYS: expire sessions this long after their last write.
 * - PANTO_MCP_SERVERS: MCP servers whose tools every turn offers (the JSON of an mcp.json,
 *   Streamable HTTP only). Headers often hold tokens: prefer the secret holding the same
 *   JSON, `sst secret set MCPServers '{"mcpServers":…}'`, which wins when set.
 */

/** Where exports go, and where messages too big for a DynamoDB item are offloaded (see @panto/aws). */
const EXPORT_PREFIX = 'exports/';
const OFFLOAD_PREFIX = 'offload/';
/** A presigned export URL lives at most 7 days; the object need not outlive it. */
const EXPORT_RETENTION_DAYS = 7;
/** Offloaded messages move to S3 Intelligent-Tiering after this many days. */
const OFFLOAD_TIERING_DAYS = 30;

/** The HTTP API's routes; every one is served by the API function, behind the JWT authorizer. */
const API_ROUTES = [
  'POST /sessions',
  'GET /sessions',
  'GET /sessions/{id}',
  'POST /sessions/{id}/messages',
  'POST /sessions/{id}/compact',
  'POST /sessions/{id}/export',
  'DELETE /sessions/{id}',
] as const;

export default $config({
  app(input) {
    return {
      name: 'panto',
      home: 'aws',
      removal: input?.stage === 'production' ? 'retain' : 'remove',
      protect: input?.stage === 'production',
    };
  },
  async run() {
    const issuer = required('PANTO_JWT_ISSUER');
    const audience = required('PANTO_JWT_AUDIENCE');
    const jwksUrl = process.env.PANTO_JWT_JWKS_URL ?? `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`;
    const ttlDays = process.env.PANTO_SESSION_TTL_DAYS;

    const table = new sst.aws.Dynamo('PantoTable', {
      fields: { pk: 'string', sk: 'string', gsi1pk: 'string', gsi1sk: 'string' },
      primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
      globalIndexes: { byOwner: { hashKey: 'gsi1pk', rangeKey: 'gsi1sk' } },
      ttl: 'expires_at',
      // Keys are all the TTL cleanup needs: it reads the session id from `pk`, and a session's
      // offloaded messages (`offload/<id>/`) and exports (`exports/<id>/`) are keyed by it alone.
      stream: 'keys-only',
      transform: {
        table: (args: aws.dynamodb.TableArgs) => {
          args.pointInTimeRecovery = { enabled: true };
        },
      },
    });

    const bucket = new sst.aws.Bucket('PantoBucket', {
      lifecycle: [
        { id: 'expire-exports', prefix: EXPORT_PREFIX, expiresIn: `${EXPORT_RETENTION_DAYS} days` },
        // Offloaded messages live exactly as long as their session, however long appends keep
        // it alive, so no rule expires them by age: deleteSession and the TTL cleanup remove
        // them (and a session's exports). This rule only moves them to cheaper storage (see
        // transform.lifecycle).
        { id: 'tier-offloads', prefix: OFFLOAD_PREFIX },
      ],
      transform: {
        lifecycle: (args: aws.s3.BucketLifecycleConfigurationArgs) => {
          args.rules = (args.rules as aws.types.input.s3.BucketLifecycleConfigurationRule[]).map((rule) =>
            rule.id === 'tier-offloads'
              ? { ...rule, transitions: [{ days: OFFLOAD_TIERING_DAYS, storageClass: 'INTELLIGENT_TIERING' }] }
              : { ...rule, abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } },
          );
        },
      },
    });
    new aws.s3.BucketServerSideEncryptionConfiguration('PantoBucketEncryption', {
      bucket: bucket.name,
      rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: 'AES256' }, bucketKeyEnabled: true }],
    });

    const anthropicKey = new sst.Secret('AnthropicApiKey', '');
    const openaiKey = new sst.Secret('OpenAIApiKey', '');
    const mcpServers = new sst.Secret('MCPServers', '');
    const auth = new sst.Linkable('PantoAuth', { properties: { issuer, audience, jwksUrl } });

    const environment = {
      ...(process.env.PANTO_PROVIDER ? { PANTO_PROVIDER: process.env.PANTO_PROVIDER } : {}),
      ...(process.env.PANTO_MODEL ? { PANTO_MODEL: process.env.PANTO_MODEL } : {}),
      ...(ttlDays ? { PANTO_SESSION_TTL_DAYS: ttlDays } : {}),
      ...(process.env.PANTO_MCP_SERVERS ? { PANTO_MCP_SERVERS: process.env.PANTO_MCP_SERVERS } : {}),
    };
    const nodejs = { format: 'esm' as const, minify: true, esbuild: { conditions: ['@panto/source'] } };

    const apiFunction = new sst.aws.Function('PantoApiFunction', {
      handler: 'functions/src/handlers/api.handler',
      runtime: 'nodejs22.x',
      architecture: 'arm64',
      // API Gateway gives up at 30 s; the turn stops itself at PANTO_DEADLINE_MS (25 s).
      timeout: '30 seconds',
      memory: '1024 MB',
      nodejs,
      environment: { ...environment, PANTO_DEADLINE_MS: '25000' },
      link: [table, bucket, anthropicKey, openaiKey, mcpServers],
    });

    const streamFunction = new sst.aws.Function('PantoStreamFunction', {
      handler: 'functions/src/handlers/stream.handler',
      runtime: 'nodejs22.x',
      architecture: 'arm64',
      timeout: '15 minutes',
      memory: '1024 MB',
      nodejs,
      streaming: true,
      url: { authorization: 'none' },
      environment: { ...environment, PANTO_STREAM_DEADLINE_MS: '840000' },
      link: [table, bucket, anthropicKey, openaiKey, mcpServers, auth],
    });

    // TTL deletes only META (the one item with `expires_at`): an expired session's, or the
    // tombstone a delete that did not finish left (see @panto/aws deleteSession). This purges
    // the session's entry items, offloaded messages and exports. Only TTL's deletions of META
    // items reach it; a finished delete removes its tombstone itself, unseen here.
    table.subscribe(
      'PantoTtlCleanup',
      {
        handler: 'functions/src/handlers/ttl-cleanup.handler',
        runtime: 'nodejs22.x',
        architecture: 'arm64',
        timeout: '5 minutes',
        memory: '512 MB',
        nodejs,
        link: [table, bucket],
      },
      {
        filters: [
          {
            eventName: ['REMOVE'],
            userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
            dynamodb: { Keys: { sk: { S: ['META'] } } },
          },
        ],
        transform: {
          // The handler names the record that failed; Lambda retries from there.
          eventSourceMapping: (args: aws.lambda.EventSourceMappingArgs) => {
            args.functionResponseTypes = ['ReportBatchItemFailures'];
          },
        },
      },
    );

    const api = new sst.aws.ApiGatewayV2('PantoApi');
    const authorizer = api.addAuthorizer({ name: 'PantoJwt', jwt: { issuer, audiences: [audience] } });
    for (const route of API_ROUTES) {
      api.route(route, apiFunction.arn, { auth: { jwt: { authorizer: authorizer.id } } });
    }

    return { api: api.url, stream: streamFunction.url, table: table.name, bucket: bucket.name };
  },
});

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Set ${name} before deploying (see sst.config.ts).`);
  return value;
}
