/**
 * The server's providers from the environment: the default provider and model, each one's key
 * and base URL, Amazon Bedrock's settings, and the models an operator adds by name.
 */
import { assertModelOffered, defaultProviderName, isValidModelName, MODEL_NAME_RULE } from '@panto/core/agent-kit';
import type { Env } from './env-setting.js';
import { list } from './list-setting.js';

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
