import { createProvider, defaultProviderName, PROVIDER_NAMES, type ActiveModel, type Provider, type ProviderName } from '@panto/core';
import { UsageError } from '../errors.js';

/** Which provider to build, and how. */
export interface ProviderChoice {
  provider: ProviderName;
  model?: string;
  baseURL?: string;
  /** The AWS region for Bedrock (`--region`); the other providers ignore it. */
  region?: string;
}

/** Builds a provider; throws (with a clear message) when it cannot, e.g. an API key is missing. */
export type ProviderFactory = (settings: ProviderChoice) => Provider;

/** Checks a provider name from a flag or an environment variable. */
export function providerName(value: string, source: string): ProviderName {
  const name = PROVIDER_NAMES.find((candidate) => candidate === value);
  if (name === undefined) {
    throw new UsageError(`${source}: unknown provider ${JSON.stringify(value)} (expected ${PROVIDER_NAMES.join(', ')})`);
  }
  return name;
}

/** The real providers of @panto/core. */
export const defaultProviderFactory: ProviderFactory = (settings) =>
  createProvider({
    provider: settings.provider,
    ...(settings.model === undefined ? {} : { model: settings.model }),
    ...(settings.baseURL === undefined ? {} : { baseURL: settings.baseURL }),
    ...(settings.region === undefined ? {} : { region: settings.region }),
  });

/**
 * The provider settings of a run:
 * - provider: `--provider`, else `$PANTO_PROVIDER`, else `defaultProviderName(env)`;
 * - model: `--model`, else `$PANTO_MODEL`, else the model the resumed session last used
 *   with that provider, else the provider's default;
 * - base URL: `--base-url` (the SDKs also read `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`,
 *   and Bedrock's `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`);
 * - region (Bedrock): `--region`, else the AWS SDK's (`AWS_REGION`, the profile's).
 *
 * @throws UsageError for an unknown `$PANTO_PROVIDER`
 */
export function chooseProvider(
  options: { provider?: ProviderName; model?: string; baseURL?: string; region?: string },
  env: Readonly<Record<string, string | undefined>>,
  resumedModel: ActiveModel | null,
): ProviderChoice {
  const provider =
    options.provider ?? (env.PANTO_PROVIDER ? providerName(env.PANTO_PROVIDER, 'PANTO_PROVIDER') : providerName(defaultProviderName(env), 'default provider'));
  const model = options.model ?? (env.PANTO_MODEL || undefined) ?? (resumedModel?.provider === provider ? resumedModel.model : undefined);
  return {
    provider,
    ...(model === undefined ? {} : { model }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.region === undefined ? {} : { region: options.region }),
  };
}

/**
 * Reads `/model` arguments: `provider/model`, a provider alone (its default model), or a
 * model alone (same provider). The model may itself contain `/` after the provider
 * (`openai/meta-llama/Llama-3.3-70B`). The base URL is kept only when the provider stays;
 * the region (Bedrock's alone) is always kept, so `/model bedrock/…` calls where `--region` said.
 */
export function parseModelSpec(spec: string, current: ProviderChoice): ProviderChoice {
  const value = spec.trim();
  const slash = value.indexOf('/');
  const head = slash === -1 ? value : value.slice(0, slash);
  const known = PROVIDER_NAMES.find((name) => name === head);
  let provider: ProviderName;
  let model: string | undefined;
  if (known !== undefined) {
    provider = known;
    model = slash === -1 ? undefined : value.slice(slash + 1) || undefined;
  } else if (slash !== -1) {
    provider = providerName(head, '/model');
    model = value.slice(slash + 1);
  } else {
    provider = current.provider;
    model = value;
  }
  return {
    provider,
    ...(model === undefined ? {} : { model }),
    ...(provider === current.provider && current.baseURL !== undefined ? { baseURL: current.baseURL } : {}),
    ...(current.region === undefined ? {} : { region: current.region }),
  };
}

/** A provider choice in words: `anthropic/claude-… at http://…`, `bedrock/… in eu-west-1`. */
export function describeProviderChoice(settings: ProviderChoice & { model?: string }): string {
  const region = settings.provider === 'bedrock' && settings.region ? ` in ${settings.region}` : '';
  return `${settings.provider}/${settings.model ?? '(default model)'}${region}${settings.baseURL ? ` at ${settings.baseURL}` : ''}`;
}
