/// <reference path="./.sst/platform/config.d.ts" />
/**
 * Wiring only: the sessions table, the bucket for exports and offloaded messages, the HTTP
 * API (a JWT authorizer in front of every route but the health check and the OpenAPI
 * document) and its function, the streaming function behind a function URL, the table's
 * stream consumer that purges what TTL-expired sessions leave behind, the provider keys as
 * secrets, the web client (web/) as a static site, and — unless you bring your own identity
 * provider — a Cognito user pool whose tokens the API accepts. The functions read all of it through `Resource.X`
 * (functions/src/config.ts). docs/deploy.md walks through a deployment.
 *
 * Deploy-time settings (environment of `sst deploy` / `sst dev`):
 * - PANTO_JWT_ISSUER, PANTO_JWT_AUDIENCE: an identity provider of your own; when unset, the
 *   stack creates a Cognito user pool and app client and trusts those.
 *   PANTO_JWT_JWKS_URL when its keys are not at `<issuer>/.well-known/jwks.json`.
 * - PANTO_AUTH_CALLBACK_URLS, PANTO_AUTH_LOGOUT_URLS (comma-separated): turn on the user
 *   pool client's hosted-UI sign-in (authorization code + PKCE) for a browser client at
 *   those URLs; PANTO_AUTH_DOMAIN_PREFIX gives the hosted UI its domain
 *   (`<prefix>.auth.<region>.amazoncognito.com`).
 * - PANTO_CORS_ORIGINS (comma-separated, or `*`): origins browsers may call the API from.
 *   The web client's own origin (the `web` output) goes here and, with `/`, in the callback
 *   and logout URLs: it is built with the API's URL, so the API cannot learn the site's
 *   before the site exists — set them after the first deploy and deploy again (or use a
 *   domain you know up front).
 * - PANTO_PROVIDER, PANTO_MODEL, PANTO_EXTRA_MODELS: the default model (keys:
 *   `sst secret set AnthropicApiKey …`).
 * - PANTO_ARCHIVE_AFTER_DAYS: archive sessions to S3 this long after their last write (a
 *   scheduled sweeper, every PANTO_ARCHIVE_SWEEP_SECONDS, default 3600); none when unset.
 * - PANTO_ARCHIVE_TIER_DAYS: move exports and archives to S3 Glacier Instant Retrieval
 *   this long after they are written (default 30).
 * - PANTO_SESSION_TTL_DAYS: expire sessions this long after their last write;
 *   PANTO_IDEMPOTENCY_TTL_HOURS: how long an Idempotency-Key answers retries (default 24).
 * - PANTO_MCP_SERVERS: MCP servers whose tools every turn offers (the JSON of an mcp.json,
 *   Streamable HTTP only). Headers often hold tokens: prefer the secret holding the same
 *   JSON, `sst secret set MCPServers '{"mcpServers":…}'`, which wins when set.
 *
 * What differs under `sst dev` ($dev): the functions run on your machine (SST's Live
 * Lambda: the deployed functions are stubs that forward to it), against the stage's real
 * table and bucket; the local stack's origin (http://127.0.0.1:3000, http://localhost:3000)
 * is added to the CORS origins and to the sign-in callback URLs; and the TTL cleanup is
 * deployed for real (`dev: false`), since it must run while your machine is off; and the web
 * client is not deployed: `sst dev` runs its Vite dev server on http://127.0.0.1:3000.
 */

/** Stages whose data is kept when the stage is removed, and which cannot be removed by accident. */
const PRODUCTION_STAGES = ['production', 'prod'];

/**
 * Where exports and archives go (kept until their session is deleted), and where messages
 * too big for a DynamoDB item are offloaded (see @panto/aws).
 */
const EXPORT_PREFIX = 'exports/';
const ARCHIVE_PREFIX = 'archive/';
const OFFLOAD_PREFIX = 'offload/';
/** Offloaded messages move to S3 Intelligent-Tiering after this many days. */
const OFFLOAD_TIERING_DAYS = 30;
/** Exports and archives move to Glacier Instant Retrieval after this many days (PANTO_ARCHIVE_TIER_DAYS). */
const ARCHIVE_TIERING_DAYS = 30;
/** Lifecycle rules that tier exports and archives: never an expiry. */
const ARCHIVE_RULES = ['tier-exports', 'tier-archives'];
/** Idempotent answers too big for an item; their keys live at most 7 days (PANTO_IDEMPOTENCY_TTL_HOURS ≤ 168). */
const IDEMPOTENCY_PREFIX = 'idempotency/';
const IDEMPOTENCY_RETENTION_DAYS = 8;

/**
 * The HTTP API's routes; every one is served by the API function, behind the JWT authorizer.
 * The routes that stream for minutes (`POST …/messages/stream`, `GET …/events`) are served
 * by the streaming function's URL instead.
 */
const API_ROUTES = [
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
] as const;
/** Routes answered without a token (functions/src/api-routes.ts marks them `public`). */
const PUBLIC_API_ROUTES = ['GET /health', 'GET /openapi.json'] as const;

/** The CORS rules, the same as the app's own (functions/src/app.ts; a test holds them equal). */
const CORS_ALLOW_HEADERS = ['authorization', 'content-type', 'idempotency-key'];
const CORS_EXPOSE_HEADERS = ['retry-after', 'idempotent-replayed'];
// No OPTIONS: a preflight is answered whatever this says, and a function URL refuses a method name over 6 characters.
const CORS_ALLOW_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const CORS_MAX_AGE = '600 seconds' as const;
/** The port of the local stack (`npm start`), and of the web client's dev server under `sst dev`. */
const DEV_PORT = 3000;
/** The local stack's origin (`npm start`), which a web client run there calls a dev stage from. */
const DEV_ORIGINS = [`http://127.0.0.1:${DEV_PORT}`, `http://localhost:${DEV_PORT}`];

export default $config({
  app(input) {
    return {
      name: 'panto',
      home: 'aws',
      removal: PRODUCTION_STAGES.includes(input?.stage ?? '') ? 'retain' : 'remove',
      protect: PRODUCTION_STAGES.includes(input?.stage ?? ''),
    };
  },
  async run() {
    const production = PRODUCTION_STAGES.includes($app.stage);
    const corsOrigins = [...list(process.env.PANTO_CORS_ORIGINS), ...($dev ? DEV_ORIGINS : [])];
    const identity = process.env.PANTO_JWT_ISSUER ? ownIssuer(process.env.PANTO_JWT_ISSUER) : cognito(production);
    const { issuer, audience } = identity;
    const jwksUrl = process.env.PANTO_JWT_JWKS_URL ?? $interpolate`${issuer}/.well-known/jwks.json`;
    const ttlDays = process.env.PANTO_SESSION_TTL_DAYS;
    const archiveAfterDays = process.env.PANTO_ARCHIVE_AFTER_DAYS;
    const archiveTierDays = Number(process.env.PANTO_ARCHIVE_TIER_DAYS || ARCHIVE_TIERING_DAYS);
    if (!Number.isInteger(archiveTierDays) || archiveTierDays < 0) throw new Error('PANTO_ARCHIVE_TIER_DAYS must be a whole number of days.');

    const table = new sst.aws.Dynamo('PantoTable', {
      fields: { pk: 'string', sk: 'string', gsi1pk: 'string', gsi1sk: 'string', gsi2pk: 'string', gsi2sk: 'string' },
      primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
      globalIndexes: {
        byOwner: { hashKey: 'gsi1pk', rangeKey: 'gsi1sk' },
        // Sparse: sessions whose entries are in the table, by last activity; the archive sweeper's.
        byActivity: { hashKey: 'gsi2pk', rangeKey: 'gsi2sk', projection: 'keys-only' },
      },
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
        // Exports and archives are a session's copies in S3, and offloaded messages part of it:
        // they live exactly as long as their session, so no rule expires them by age —
        // deleteSession and the TTL cleanup remove them. These rules only move them to cheaper
        // storage (see transform.lifecycle).
        { id: 'tier-exports', prefix: EXPORT_PREFIX },
        { id: 'tier-archives', prefix: ARCHIVE_PREFIX },
        { id: 'tier-offloads', prefix: OFFLOAD_PREFIX },
        { id: 'expire-idempotency', prefix: IDEMPOTENCY_PREFIX, expiresIn: `${IDEMPOTENCY_RETENTION_DAYS} days` },
      ],
      transform: {
        lifecycle: (args: aws.s3.BucketLifecycleConfigurationArgs) => {
          args.rules = (args.rules as aws.types.input.s3.BucketLifecycleConfigurationRule[]).map((rule) =>
            ARCHIVE_RULES.includes(rule.id as string)
              ? {
                  ...rule,
                  // Rarely read, read at once when they are (a restore, a download): Glacier IR.
                  transitions: [{ days: archiveTierDays, storageClass: 'GLACIER_IR' }],
                  abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
                }
              : rule.id === 'tier-offloads'
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
      ...(process.env.PANTO_EXTRA_MODELS ? { PANTO_EXTRA_MODELS: process.env.PANTO_EXTRA_MODELS } : {}),
      ...(ttlDays ? { PANTO_SESSION_TTL_DAYS: ttlDays } : {}),
      ...(process.env.PANTO_IDEMPOTENCY_TTL_HOURS ? { PANTO_IDEMPOTENCY_TTL_HOURS: process.env.PANTO_IDEMPOTENCY_TTL_HOURS } : {}),
      ...(process.env.PANTO_MCP_SERVERS ? { PANTO_MCP_SERVERS: process.env.PANTO_MCP_SERVERS } : {}),
      ...(corsOrigins.length > 0 ? { PANTO_CORS_ORIGINS: corsOrigins.join(',') } : {}),
    };
    const cors = {
      allowOrigins: corsOrigins,
      allowHeaders: CORS_ALLOW_HEADERS,
      allowMethods: [...CORS_ALLOW_METHODS],
      exposeHeaders: CORS_EXPOSE_HEADERS,
      maxAge: CORS_MAX_AGE,
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
      // Lambda answers preflights on a function URL itself, before the function runs.
      url: { authorization: 'none', cors },
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
        // Deployed for real under `sst dev` too: expired sessions must be purged while your machine is off.
        dev: false,
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

    // Archive sessions nobody wrote to for PANTO_ARCHIVE_AFTER_DAYS (@panto/aws sweepColdSessions).
    if (archiveAfterDays) {
      const sweepMinutes = Math.max(1, Math.round(Number(process.env.PANTO_ARCHIVE_SWEEP_SECONDS || 3600) / 60));
      new sst.aws.CronV2('PantoArchiveSweep', {
        schedule: `rate(${sweepMinutes} ${sweepMinutes === 1 ? 'minute' : 'minutes'})`,
        function: {
          handler: 'functions/src/handlers/archive-sweep.handler',
          runtime: 'nodejs22.x',
          architecture: 'arm64',
          timeout: '15 minutes',
          memory: '512 MB',
          nodejs,
          environment: { PANTO_ARCHIVE_AFTER_DAYS: archiveAfterDays },
          link: [table, bucket],
        },
      });
    }

    // API Gateway answers preflights itself (OPTIONS never reaches the authorizer) and sets the
    // CORS headers on every answer.
    const api = new sst.aws.ApiGatewayV2('PantoApi', { cors });
    const authorizer = api.addAuthorizer({ name: 'PantoJwt', jwt: { issuer, audiences: [audience] } });
    for (const route of API_ROUTES) {
      api.route(route, apiFunction.arn, { auth: { jwt: { authorizer: authorizer.id } } });
    }
    for (const route of PUBLIC_API_ROUTES) api.route(route, apiFunction.arn);

    // The web client (web/): built with the API's and the streaming function's URLs, and the
    // user pool's hosted UI when it has a domain, then served from S3 behind CloudFront. Under
    // `sst dev` it is not deployed: its Vite dev server runs on your machine, on the local
    // stack's origin (already allowed for CORS and sign-in, above).
    const web = new sst.aws.StaticSite('PantoWeb', {
      path: 'web',
      build: { command: 'npm run build', output: 'dist' },
      environment: {
        VITE_PANTO_API_URL: api.url,
        VITE_PANTO_STREAM_URL: streamFunction.url,
        ...(identity.hostedUi ? { VITE_PANTO_AUTH_DOMAIN: identity.hostedUi.domain, VITE_PANTO_AUTH_CLIENT_ID: identity.hostedUi.clientId } : {}),
      },
      dev: { command: `npm run dev -- --port ${DEV_PORT} --strictPort`, url: `http://127.0.0.1:${DEV_PORT}` },
    });

    return {
      stage: $app.stage,
      region: aws.getRegionOutput().region,
      api: api.url,
      stream: streamFunction.url,
      web: web.url,
      table: table.name,
      bucket: bucket.name,
      issuer,
      ...identity.outputs,
    };
  },
});

interface Identity {
  issuer: string | $util.Output<string>;
  audience: string | $util.Output<string>;
  /** What `npm run user` / `npm run token -- --stage` read from .sst/outputs.json. */
  outputs: Record<string, unknown>;
  /** The hosted UI the web client signs in through (authorization code + PKCE), when there is one. */
  hostedUi?: { domain: string | $util.Output<string>; clientId: string | $util.Output<string> };
}

/** An identity provider of your own: its issuer, and the audience its tokens carry (`aud`, or Cognito's `client_id`). */
function ownIssuer(issuer: string): Identity {
  const audience = process.env.PANTO_JWT_AUDIENCE;
  if (!audience) throw new Error('Set PANTO_JWT_AUDIENCE with PANTO_JWT_ISSUER (see sst.config.ts), or unset both to use a Cognito user pool.');
  return { issuer: issuer.replace(/\/+$/, ''), audience, outputs: {} };
}

/**
 * A Cognito user pool whose users an operator adds (`npm run user -- add alice`; nobody signs
 * up by themselves), and its public app client: password sign-in for the operator's token
 * command (ADMIN_USER_PASSWORD_AUTH needs AWS credentials), SRP and refresh for apps, and —
 * with PANTO_AUTH_CALLBACK_URLS — the hosted UI's authorization code flow (PKCE) for a web client.
 */
function cognito(production: boolean): Identity {
  const domainPrefix = process.env.PANTO_AUTH_DOMAIN_PREFIX;
  const userPool = new sst.aws.CognitoUserPool('PantoUserPool', {
    ...(domainPrefix ? { domain: { prefix: domainPrefix } } : {}),
    transform: {
      userPool: (args: aws.cognito.UserPoolArgs) => {
        args.adminCreateUserConfig = { allowAdminCreateUserOnly: true };
        args.deletionProtection = production ? 'ACTIVE' : 'INACTIVE';
      },
    },
  });
  const callbackUrls = [...list(process.env.PANTO_AUTH_CALLBACK_URLS), ...($dev ? DEV_ORIGINS.map((origin) => `${origin}/`) : [])];
  const logoutUrls = [...list(process.env.PANTO_AUTH_LOGOUT_URLS), ...($dev ? DEV_ORIGINS.map((origin) => `${origin}/`) : [])];
  const hostedUi = list(process.env.PANTO_AUTH_CALLBACK_URLS).length > 0 || $dev;
  const client = userPool.addClient('PantoClient', {
    ...(hostedUi ? { callbackUrls } : {}),
    transform: {
      client: (args: aws.cognito.UserPoolClientArgs) => {
        args.explicitAuthFlows = ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'];
        args.generateSecret = false;
        args.preventUserExistenceErrors = 'ENABLED';
        if (hostedUi) {
          args.allowedOauthFlows = ['code'];
          args.allowedOauthScopes = ['openid', 'email', 'profile'];
          args.logoutUrls = logoutUrls;
        } else {
          // No browser client configured: no hosted-UI sign-in at all (SST's default would allow one to https://example.com).
          args.allowedOauthFlowsUserPoolClient = false;
          delete args.allowedOauthFlows;
          delete args.allowedOauthScopes;
          delete args.callbackUrls;
        }
      },
    },
  });
  return {
    issuer: $interpolate`https://cognito-idp.${aws.getRegionOutput().region}.amazonaws.com/${userPool.id}`,
    audience: client.id,
    outputs: {
      userPool: userPool.id,
      userPoolClient: client.id,
      ...(domainPrefix ? { authDomain: userPool.domainUrl } : {}),
    },
    // `domainUrl` is there only when the pool has a domain (PANTO_AUTH_DOMAIN_PREFIX).
    ...(hostedUi && userPool.domainUrl !== undefined ? { hostedUi: { domain: userPool.domainUrl, clientId: client.id } } : {}),
  };
}

/** A comma-separated setting as its non-empty, trimmed items. */
function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
