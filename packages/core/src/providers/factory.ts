import type { Provider } from './provider.js';
import type { ProviderCallSettings } from './provider-options.js';
import { AnthropicMessagesProvider } from './anthropic-messages.js';
import { BedrockConverseProvider } from './bedrock.js';
import { DEFAULT_MODELS } from './models.js';
import { checkProviderOptions, type ProviderName } from './names.js';
import { OfflineProvider } from './offline.js';
import { OpenAIChatProvider } from './openai-chat.js';

/** A provider by name, with the options every provider takes ({@link ProviderCallSettings}) and these: */
export interface CreateProviderOptions extends ProviderCallSettings {
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
  checkProviderOptions(options);
  const { provider, model, region, ...connection } = options;
  switch (provider) {
    case 'anthropic':
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
      throw new Error(`unreachable: ${provider}`);
  }
}
