/**
 * The providers by name, and what a provider needs before it is built — without the
 * providers' code (factory.ts imports all four): what a host that loads a provider only when
 * it first calls it (`deferredProvider`) and the model catalog need.
 */
import { ProviderNotConfiguredError, UnknownProviderError } from '../errors.js';

/** The providers panto ships, by the name the CLI, the HTTP service and the session log use. */
export const PROVIDER_NAMES = ['anthropic', 'openai', 'bedrock', 'offline'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/**
 * The environment variables that hold each provider's credentials, read by panto or by the
 * provider's SDK: API keys and tokens, webhook secrets, and the custom-header variables
 * (they carry a gateway's auth header). Base URLs, organisation and project ids are not
 * secrets and are not listed. The CLI's `bash` tool withholds these from the commands it
 * runs for a model; a new provider lists its own.
 */
export const PROVIDER_CREDENTIAL_VARIABLES: Readonly<Record<ProviderName, readonly string[]>> = {
  anthropic: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_IDENTITY_TOKEN', 'ANTHROPIC_WEBHOOK_SIGNING_KEY', 'ANTHROPIC_CUSTOM_HEADERS'],
  openai: ['OPENAI_API_KEY', 'OPENAI_ADMIN_KEY', 'OPENAI_WEBHOOK_SECRET', 'OPENAI_CUSTOM_HEADERS'],
  // The AWS SDK's static credentials and Bedrock API keys; a profile name or SSO cache is not a secret here.
  bedrock: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK'],
  offline: [],
};

/**
 * The provider to use when none was chosen: `anthropic` when `ANTHROPIC_API_KEY` is set,
 * else `openai` when `OPENAI_API_KEY` is set, else `offline`. Blank values count as unset.
 */
export function defaultProviderName(env: NodeJS.ProcessEnv = process.env): ProviderName {
  if (env.ANTHROPIC_API_KEY?.trim()) return 'anthropic';
  if (env.OPENAI_API_KEY?.trim()) return 'openai';
  return 'offline';
}

/** What building a provider from these options checks first. */
export interface ProviderCheckOptions {
  provider: string;
  apiKey?: string | undefined;
  baseURL?: string | undefined;
}

/**
 * Throws what `createProvider` throws before it builds anything: {@link UnknownProviderError}
 * for a name panto does not ship, {@link ProviderNotConfiguredError} for `anthropic` or
 * `openai` without an API key (option or environment variable; for `anthropic`, a base URL
 * naming a server of one's own may need none).
 */
export function checkProviderOptions<T extends ProviderCheckOptions>(options: T): asserts options is T & { provider: ProviderName } {
  const { provider, apiKey, baseURL } = options;
  if (!(PROVIDER_NAMES as readonly string[]).includes(provider)) throw new UnknownProviderError(provider, PROVIDER_NAMES);
  if (provider === 'anthropic' && !apiKey && !process.env.ANTHROPIC_API_KEY && !process.env.ANTHROPIC_AUTH_TOKEN && !baseURL) {
    throw new ProviderNotConfiguredError('anthropic', 'no API key: set ANTHROPIC_API_KEY or pass apiKey');
  }
  if (provider === 'openai') openAIKey(apiKey);
}

/** The OpenAI key: `apiKey`, else `OPENAI_API_KEY`; {@link ProviderNotConfiguredError} when neither is set. */
export function openAIKey(apiKey: string | undefined): string {
  const key = apiKey ?? process.env.OPENAI_API_KEY;
  if (key === undefined || key === '') {
    // Fail at construction, as the SDK would, rather than at the first call.
    throw new ProviderNotConfiguredError('openai', 'no API key: set OPENAI_API_KEY or pass apiKey (any non-empty value for a server that needs none)');
  }
  return key;
}
