/// <reference path="./.sst/platform/config.d.ts" />
/**
 * Wiring only: the sessions table, the bucket for exports and offloaded messages, the HTTP
 * API (a JWT authorizer in front of every route but the health check and the OpenAPI
 * document) and its function, the streaming function behind a function URL, the table's
 * stream consumer that purges what TTL-expired sessions leave behind, the provider keys as
 * secrets, the web client (web/) as a static site, one CloudFront distribution (a Router:
 * the site at `/`, the API at `/api`, the stream at `/stream`), and — unless you bring your
 * own identity provider — a Cognito user pool whose tokens the API accepts. The functions read all of it through `Resource.X`
 * (functions/src/config.ts). Each of those lives in its own file under infra/; this file
 * only wires them. docs/deploy.md walks through a deployment.
 *
 * Deploy-time settings (environment of `sst deploy` / `sst dev`):
 * - PANTO_JWT_ISSUER, PANTO_JWT_AUDIENCE: an identity provider of your own; when unset, the
 *   stack creates a Cognito user pool and app client and trusts those.
 *   PANTO_JWT_JWKS_URL when its keys are not at `<issuer>/.well-known/jwks.json`.
 * - PANTO_AUTH_DOMAIN_PREFIX: gives the user pool's hosted UI its domain
 *   (`<prefix>.auth.<region>.amazoncognito.com`) and turns on its sign-in (authorization code
 *   + PKCE) for the web client, whose URL (the Router's) is the callback and logout URL from
 *   the first deploy. PANTO_AUTH_CALLBACK_URLS, PANTO_AUTH_LOGOUT_URLS (comma-separated):
 *   other browser clients' URLs, besides it.
 * - PANTO_CORS_ORIGINS (comma-separated, or `*`): other origins browsers may call the API
 *   from. The web client needs none: it calls its own origin (the Router's `/api`, `/stream`).
 * - OTEL_EXPORTER_OTLP_ENDPOINT and OpenTelemetry's other standard variables,
 *   PANTO_TRACE_CONTENT, PANTO_OTEL_COLLECTOR_LAYER: traces (infra/tracing.ts).
 * - PANTO_PROVIDER, PANTO_MODEL, PANTO_EXTRA_MODELS: the default model (keys:
 *   `sst secret set AnthropicApiKey …`). With no key secret set, the default provider is
 *   Amazon Bedrock, through the function role: the API and stream functions may call exactly
 *   the Bedrock models configured here (infra/bedrock.ts) — enable their model access in the
 *   Bedrock console of the stage's region first.
 * - PANTO_ARCHIVE_AFTER_DAYS: archive sessions to S3 this long after their last write (a
 *   scheduled sweeper, every PANTO_ARCHIVE_SWEEP_SECONDS, default 3600, whose first run
 *   indexes the sessions of a table older than its activity index); none when unset.
 * - PANTO_ARCHIVE_TIER_DAYS: move exports and archives to S3 Glacier Instant Retrieval
 *   this long after they are written (default 30).
 * - PANTO_SESSION_TTL_DAYS: expire sessions this long after their last write;
 *   PANTO_IDEMPOTENCY_TTL_HOURS: how long an Idempotency-Key answers retries (default 24).
 * - PANTO_BUDGET_DAILY_USD, PANTO_BUDGET_MONTHLY_USD, PANTO_TURNS_PER_MINUTE,
 *   PANTO_CONCURRENT_TURNS: each owner's limits (none when unset); per-owner overrides are
 *   set with `npm run user -- limits <user> …` (docs/deploy.md#limits). PANTO_MODEL_PRICES
 *   (JSON, dollars per million tokens): prices of models the catalog has none for — under a
 *   dollar budget a model without a price is refused.
 * - PANTO_MCP_SERVERS: MCP servers whose tools every turn offers (the JSON of an mcp.json,
 *   Streamable HTTP only). Headers often hold tokens: prefer the secret holding the same
 *   JSON, `sst secret set MCPServers '{"mcpServers":…}'`, which wins when set.
 * - PANTO_MCP_APPROVALS: which MCP tools' calls wait for a person's decision, per server and
 *   per tool (`{"docs":"never","shop":{"refund":"ask","*":"never"}}`); a tool no rule names
 *   asks unless its server marks it read-only (docs/mcp.md#approvals-on-the-service).
 *
 * What differs under `sst dev` ($dev): the functions run on your machine (SST's Live
 * Lambda: the deployed functions are stubs that forward to it), against the stage's real
 * table and bucket; the local stack's origin (http://127.0.0.1:3000, http://localhost:3000)
 * is added to the CORS origins and to the sign-in callback URLs; and the TTL cleanup is
 * deployed for real (`dev: false`), since it must run while your machine is off; and the web
 * client is not deployed — `sst dev` runs its Vite dev server on http://127.0.0.1:3000 — nor
 * the Router, which would only front it.
 */

/**
 * Stages whose data is kept when the stage is removed, and which cannot be removed by accident
 * (infra/auth.ts also protects their user pool from deletion, reading `$app.protect`).
 */
const PRODUCTION_STAGES = ['production', 'prod'];

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
    // The Router first: the sign-in callbacks (auth) are its URL.
    await import('./infra/router');
    const { identity } = await import('./infra/auth');
    const { table, bucket } = await import('./infra/storage');
    const { api } = await import('./infra/api');
    const { streamFunction } = await import('./infra/stream');
    await import('./infra/ttl-cleanup');
    await import('./infra/archive-sweeper');
    const { web } = await import('./infra/web');
    return {
      stage: $app.stage,
      region: aws.getRegionOutput().region,
      api: api.url,
      stream: streamFunction.url,
      web: web.url,
      table: table.name,
      bucket: bucket.name,
      issuer: identity.issuer,
      ...identity.outputs,
    };
  },
});
