/**
 * The one place the deployed service reads its environment: SST's linked resources
 * (`Resource.X`) and environment variables for tunables. The local stack's settings build
 * on the helpers here (`local/settings.ts`), never the other way round.
 */
import { assertModelOffered, defaultProviderName, isValidModelName, MODEL_NAME_RULE } from '@panto/core/agent-kit';
import { parseMCPConfig, type MCPHTTPServerConfig } from '@panto/core/mcp/config';
import type { OwnerLimits } from '@panto/aws/service';
import { Resource } from 'sst/resource';
import { type Env, integer } from './env-setting.js';
import { list } from './list-setting.js';
import { type ServiceLimits, serviceLimits } from './service-limits.js';

export { type Env, integer } from './env-setting.js';
export { DEFAULT_SERVICE_LIMITS, type ServiceLimits, serviceLimits } from './service-limits.js';
import { type MCPApprovalRules, parseMCPApprovals } from './mcp-approvals.js';

/** The links `sst.config.ts` gives the functions (see `link:` there). */
declare module 'sst/resource' {
  export interface Resource {
    PantoTable: { name: string };
    PantoBucket: { name: string };
    PantoAuth: { issuer: string; audience: string; jwksUrl: string };
    AnthropicApiKey: { value: string };
    OpenAIApiKey: { value: string };
    /** The JSON of an mcp.json, as a secret because headers may hold tokens; empty when unset. */
    MCPServers: { value: string };
  }
}

/** Where the AWS clients point: AWS itself, or (the local stack) an emulator. */
export interface AwsEndpoints {
  region: string;
  /** DynamoDB Local, when set (local stack only). */
  dynamodb?: string;
  /** The S3 emulator, when set (local stack only). */
  s3?: string;
}

/**
 * Amazon Bedrock for this server: no key — the AWS SDK's credential chain (the function role
 * on AWS) and that role's IAM policy decide which models may be called.
 */
export interface BedrockSettings {
  /** `AWS_REGION`; the SDK's own choice (the AWS profile's region) when absent. */
  region?: string;
  /** `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`: a VPC endpoint, a fake server in tests. */
  endpoint?: string;
  /**
   * `PANTO_BEDROCK_MODELS`: the models the deployment's IAM statement allows (infra/bedrock.ts
   * sets it), which are then the only Bedrock models a client may choose; any of the catalog's
   * when absent.
   */
  models?: string[];
}

/** The server's providers: the default one, and the key and base URL of each. */
export interface ProviderConfig {
  /** The provider a session uses until it picks one (`PANTO_PROVIDER`). */
  provider: string;
  /** Its model (`PANTO_MODEL`); the provider's default when absent. */
  model?: string;
  apiKeys: { [provider: string]: string };
  baseURLs: { [provider: string]: string };
  /** Present when this server can call Amazon Bedrock: on AWS when the stack granted models, elsewhere with `PANTO_PROVIDER=bedrock`. */
  bedrock?: BedrockSettings;
  /**
   * `provider/model` names a client may choose besides the catalog's (`PANTO_EXTRA_MODELS`,
   * comma-separated): the operator's escape for a model panto's catalog does not list yet.
   */
  extraModels: string[];
  /** Why this provider was chosen, for the local stack to say. */
  reason: string;
}

export interface ServiceConfig {
  tableName: string;
  bucket: string;
  aws: AwsEndpoints;
  limits: ServiceLimits;
  provider: ProviderConfig;
  /** Origins browsers may call the API from (`PANTO_CORS_ORIGINS`); `*` for any. */
  corsOrigins: string[];
  /** Sessions expire this long after their last write (DynamoDB TTL); never when absent. */
  sessionTtlSeconds?: number;
  /** How long an `Idempotency-Key` answers retries (`PANTO_IDEMPOTENCY_TTL_HOURS`, default 24). */
  idempotencyTtlSeconds: number;
  /** The MCP servers whose tools every turn offers (see {@link mcpSettings}). */
  mcp: MCPSettings;
  /** The limits of an owner without overrides (see {@link usageLimits}). */
  usage: OwnerLimits;
}

/** The service's MCP servers: Streamable HTTP only (a function cannot keep a stdio server). */
export interface MCPSettings {
  servers: MCPHTTPServerConfig[];
  /** Which of their tools ask for approval (`PANTO_MCP_APPROVALS`, see mcp-approvals.ts); a tool no rule names asks unless it is marked read-only. */
  approvals: MCPApprovalRules;
  /** What was wrong with the configuration, one line per server left out or rule not taken; never a header's value. */
  problems: string[];
}

/** The JWT issuer the streaming function verifies tokens against. */
export interface IssuerSettings {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

/** The configuration of a Lambda function deployed by `sst.config.ts`. */
export function lambdaConfig(env: Env = process.env): ServiceConfig {
  const apiKeys: { [provider: string]: string } = {};
  if (Resource.AnthropicApiKey.value) apiKeys.anthropic = Resource.AnthropicApiKey.value;
  if (Resource.OpenAIApiKey.value) apiKeys.openai = Resource.OpenAIApiKey.value;
  return {
    tableName: Resource.PantoTable.name,
    bucket: Resource.PantoBucket.name,
    aws: awsEndpoints(env),
    limits: serviceLimits(env),
    provider: providerConfig(env, apiKeys, { onAWS: true }),
    corsOrigins: corsOrigins(env),
    idempotencyTtlSeconds: idempotencyTtl(env),
    ...sessionTtl(env),
    mcp: deployedMCPSettings(Resource.MCPServers.value, env),
    usage: usageLimits(env),
  };
}

/** `PANTO_BUDGET_DAILY_USD`, `PANTO_BUDGET_MONTHLY_USD` (dollars), `PANTO_TURNS_PER_MINUTE`, `PANTO_CONCURRENT_TURNS`: each owner's limits; none when unset. */
export function usageLimits(env: Env): OwnerLimits {
  const count = (name: string): number | null => (env[name] ? integer(env, name, 0, 1, 1_000_000) : null);
  return {
    dailyUsd: decimal(env, 'PANTO_BUDGET_DAILY_USD', 1_000_000) ?? null,
    monthlyUsd: decimal(env, 'PANTO_BUDGET_MONTHLY_USD', 1_000_000) ?? null,
    turnsPerMinute: count('PANTO_TURNS_PER_MINUTE'),
    concurrentTurns: count('PANTO_CONCURRENT_TURNS'),
  };
}

/** `PANTO_IDEMPOTENCY_TTL_HOURS` (1 hour to 7 days, default 24 hours) as seconds. */
export function idempotencyTtl(env: Env): number {
  return integer(env, 'PANTO_IDEMPOTENCY_TTL_HOURS', 24, 1, 168) * 3600;
}

/**
 * `PANTO_CORS_ORIGINS`: comma-separated origins (`https://app.example.com`, no path), or `*`
 * for any; none when unset. A value that is not an origin is refused, so a typo cannot pass
 * silently for a rule that allows nothing.
 */
export function corsOrigins(env: Env): string[] {
  const origins = list(env.PANTO_CORS_ORIGINS);
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol)) {
      throw new Error(`PANTO_CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin like https://app.example.com`);
    }
  }
  return origins;
}

/** Where a session's data lives: what the TTL cleanup function needs, and no more. */
export interface StorageConfig {
  tableName: string;
  bucket: string;
  aws: AwsEndpoints;
}

/** The configuration of the TTL cleanup function (linked to the table and bucket only). */
export function lambdaStorageConfig(env: Env = process.env): StorageConfig {
  return { tableName: Resource.PantoTable.name, bucket: Resource.PantoBucket.name, aws: awsEndpoints(env) };
}

/** What the archive sweeper needs: where sessions live, and after how long idle they are archived. */
export interface ArchiveSweepConfig extends StorageConfig {
  /** `PANTO_ARCHIVE_AFTER_DAYS` in milliseconds; no automatic archiving when absent. */
  archiveAfterMs?: number;
}

/** The configuration of the scheduled archive sweeper (linked to the table and bucket only). */
export function lambdaArchiveSweepConfig(env: Env = process.env): ArchiveSweepConfig {
  return { ...lambdaStorageConfig(env), ...archiveAfter(env) };
}

/** Longest `PANTO_ARCHIVE_AFTER_DAYS`: ten years. */
const MAX_ARCHIVE_AFTER_DAYS = 3650;

/**
 * `PANTO_ARCHIVE_AFTER_DAYS` — a session with no write for this many days is archived to S3
 * (fractions allowed: `0.0001` is under nine seconds, for tests) — in milliseconds, when set.
 */
export function archiveAfter(env: Env): { archiveAfterMs?: number } {
  const days = decimal(env, 'PANTO_ARCHIVE_AFTER_DAYS', MAX_ARCHIVE_AFTER_DAYS);
  return days === undefined ? {} : { archiveAfterMs: Math.max(1, Math.round(days * 86_400_000)) };
}

/** A positive decimal setting (`1`, `0.5`) of at most `max`, or undefined when unset; a clear error otherwise. */
export function decimal(env: Env, name: string, max: number): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(value > 0) || value > max) {
    throw new Error(`${name} must be a number above 0 and at most ${max} (fractions allowed), not ${JSON.stringify(text)}`);
  }
  return value;
}

/** The issuer the streaming function checks tokens against (linked as `PantoAuth`). */
export function lambdaIssuer(): IssuerSettings {
  const { issuer, audience, jwksUrl } = Resource.PantoAuth;
  return { issuer, audience, jwksUrl };
}

/**
 * The provider configuration from the environment and the keys this deployment holds. The
 * default provider is `PANTO_PROVIDER`, else the one whose key is set (Anthropic first), else
 * — `onAWS`, when the stack granted the function role Bedrock models (`PANTO_BEDROCK_MODELS`,
 * infra/bedrock.ts) — `bedrock`, else `offline`.
 */
export function providerConfig(env: Env, apiKeys: { [provider: string]: string }, options: { onAWS?: boolean } = {}): ProviderConfig {
  const baseURLs: { [provider: string]: string } = {};
  if (env.ANTHROPIC_BASE_URL) baseURLs.anthropic = env.ANTHROPIC_BASE_URL;
  if (env.OPENAI_BASE_URL) baseURLs.openai = env.OPENAI_BASE_URL;
  // The same rule as the CLI's, applied to the keys this deployment has (secrets in AWS).
  const keyed = defaultProviderName({ ANTHROPIC_API_KEY: apiKeys.anthropic, OPENAI_API_KEY: apiKeys.openai });
  // On AWS the stack grants the role Bedrock's configured models and says which (PANTO_BEDROCK_MODELS).
  const granted = options.onAWS === true && list(env.PANTO_BEDROCK_MODELS).length > 0;
  const fallback = keyed === 'offline' && granted ? 'bedrock' : keyed;
  const provider = env.PANTO_PROVIDER || fallback;
  const extraModels = list(env.PANTO_EXTRA_MODELS);
  for (const name of extraModels) {
    const slash = name.indexOf('/');
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name.slice(0, slash)) || !isValidModelName(name.slice(slash + 1))) {
      throw new Error(`PANTO_EXTRA_MODELS: ${JSON.stringify(name)} is not provider/model (a model name: ${MODEL_NAME_RULE})`);
    }
  }
  if (env.PANTO_MODEL && !isValidModelName(env.PANTO_MODEL))
    throw new Error(`PANTO_MODEL: ${JSON.stringify(env.PANTO_MODEL)} is not a model name: ${MODEL_NAME_RULE}`);
  // The default model is the operator's choice: a retired or misspelt one is refused here, at
  // start, rather than by the provider on every turn.
  if (env.PANTO_MODEL && baseURLs[provider] === undefined) {
    try {
      assertModelOffered(provider, env.PANTO_MODEL, { extra: extraModels });
    } catch (error) {
      throw new Error(`PANTO_MODEL: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  const bedrock = granted || provider === 'bedrock' ? bedrockSettings(env) : undefined;
  return {
    provider,
    ...(env.PANTO_MODEL ? { model: env.PANTO_MODEL } : {}),
    apiKeys,
    baseURLs,
    ...(bedrock === undefined ? {} : { bedrock }),
    extraModels,
    reason: providerReason(env, fallback),
  };
}

/** Why `fallback` (or `PANTO_PROVIDER`) is the default provider, for the local stack to say. */
function providerReason(env: Env, fallback: string): string {
  if (env.PANTO_PROVIDER) return 'PANTO_PROVIDER';
  switch (fallback) {
    case 'anthropic':
      return 'an Anthropic API key is set';
    case 'openai':
      return 'an OpenAI API key is set';
    case 'bedrock':
      return 'no provider key secret is set: Amazon Bedrock, through the function role';
    default:
      return 'no provider API key is set';
  }
}

/** Bedrock's region, endpoint override and allowed models (`PANTO_BEDROCK_MODELS`, each a model name). */
export function bedrockSettings(env: Env): BedrockSettings {
  const models = list(env.PANTO_BEDROCK_MODELS);
  for (const model of models) {
    if (!isValidModelName(model)) throw new Error(`PANTO_BEDROCK_MODELS: ${JSON.stringify(model)} is not a model name: ${MODEL_NAME_RULE}`);
  }
  return {
    ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}),
    ...(env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME ? { endpoint: env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME } : {}),
    ...(models.length > 0 ? { models } : {}),
  };
}

function awsEndpoints(env: Env): AwsEndpoints {
  return { region: env.AWS_REGION ?? 'us-east-1' };
}

/**
 * The MCP servers of `PANTO_MCP_SERVERS` (or the secret holding the same): the JSON of an
 * mcp.json, `{ "mcpServers": { "<name>": { "url", "headers"? } } }`. Servers that are not
 * Streamable HTTP, and malformed entries, are left out with a problem; a value that is not
 * JSON is one problem and no servers. Never throws: a bad MCP setting must not take the
 * API down. `source` names the setting in problems.
 */
export function mcpSettings(text: string | undefined, source: string, approvalsText?: string): MCPSettings {
  if (text === undefined || text.trim() === '') return { servers: [], approvals: {}, problems: [] };
  const parsed = parseMCPConfig(text, source, { transports: ['http'] });
  const servers = parsed.servers.filter((server): server is MCPHTTPServerConfig => server.type === 'http');
  const approvals = parseMCPApprovals(
    approvalsText,
    servers.map((server) => server.name),
  );
  return { servers, approvals: approvals.rules, problems: [...parsed.problems, ...approvals.problems] };
}

/**
 * A deployment's MCP servers: the `MCPServers` secret when it is set (headers may hold tokens),
 * else `PANTO_MCP_SERVERS`; which of their tools ask for approval: `PANTO_MCP_APPROVALS`.
 */
export function deployedMCPSettings(secret: string, env: Env): MCPSettings {
  return secret.trim() !== ''
    ? mcpSettings(secret, 'the MCPServers secret', env.PANTO_MCP_APPROVALS)
    : mcpSettings(env.PANTO_MCP_SERVERS, 'PANTO_MCP_SERVERS', env.PANTO_MCP_APPROVALS);
}

/** `PANTO_SESSION_TTL_DAYS` as seconds, when set. */
export function sessionTtl(env: Env): { sessionTtlSeconds?: number } {
  if (!env.PANTO_SESSION_TTL_DAYS) return {};
  return { sessionTtlSeconds: integer(env, 'PANTO_SESSION_TTL_DAYS', 0, 1, 3650) * 86_400 };
}
