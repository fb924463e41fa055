import { ProviderNotConfiguredError, UnknownProviderError } from '../errors.js';
import type { Provider } from './provider.js';
import { AnthropicMessagesProvider } from './anthropic-messages.js';
import { BedrockConverseProvider } from './bedrock.js';
import { DEFAULT_MODELS } from './models.js';

export { DEFAULT_MODELS };
import { OfflineProvider } from './offline.js';
import { OpenAIChatProvider } from './openai-chat.js';

/** The providers panto ships, by the name the CLI, the HTTP service and the session log use. */
export const PROVIDER_NAMES = ['anthropic', 'openai', 'bedrock', 'offline'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface CreateProviderOptions {
  /** `anthropic`, `openai`, `bedrock` or `offline`; anything else throws {@link UnknownProviderError}. */
  provider: ProviderName | (string & {});
  /** Default: {@link DEFAULT_MODELS}. */
  model?: string | undefined;
  /** Default: the SDK's environment variable (`ANTHROPIC_API_KEY` / `OPENAI_API_KEY`). Bedrock takes none: AWS credentials come from the SDK's chain. */
  apiKey?: string | undefined;
  /**
   * Default: `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, else the vendor's API. For Bedrock, the
   * Bedrock Runtime endpoint (default: `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, else the region's).
   */
  baseURL?: string | undefined;
  /** Bedrock's AWS region; default `AWS_REGION`, else the AWS profile's. Ignored by the others. */
  region?: string | undefined;
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  timeoutMs?: number | undefined;
  /** Retries of 429/5xx/connection failures with the SDK's backoff. Default 2. */
  maxRetries?: number | undefined;
}

/**
 * Builds a provider by name. The offline provider ignores the connection options. Throws
 * {@link UnknownProviderError} for an unknown name, and {@link ProviderNotConfiguredError}
 * for `anthropic` / `openai` with no API key (option or environment variable) — unless a
 * base URL names a server of your own, which may need none.
 *
 * @example
 * const provider = createProvider({ provider: defaultProviderName(), model: process.env.PANTO_MODEL });
 */
export function createProvider(options: CreateProviderOptions): Provider {
  const { provider, model, region, ...connection } = options;
  switch (provider) {
    case 'anthropic':
      if (!connection.apiKey && !process.env.ANTHROPIC_API_KEY && !process.env.ANTHROPIC_AUTH_TOKEN && !connection.baseURL) {
        throw new ProviderNotConfiguredError('anthropic', 'no API key: set ANTHROPIC_API_KEY or pass apiKey');
      }
      return new AnthropicMessagesProvider({ model: model ?? DEFAULT_MODELS.anthropic, ...connection });
    case 'openai':
      return new OpenAIChatProvider({ model: model ?? DEFAULT_MODELS.openai, ...connection });
    case 'bedrock': {
      const { apiKey: _apiKey, baseURL, ...rest } = connection;
      return new BedrockConverseProvider({ model: model ?? DEFAULT_MODELS.bedrock, region, endpoint: baseURL, ...rest });
    }
    case 'offline':
      return new OfflineProvider({ model: model ?? DEFAULT_MODELS.offline });
    default:
      throw new UnknownProviderError(provider, PROVIDER_NAMES);
  }
}

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
