import {
  assertModelOffered,
  deferredProvider,
  ProviderNotConfiguredError,
  UnsupportedModelError,
  type ActiveModel,
  type Provider,
} from '@panto/core/agent-kit';
import type { ProviderConfig } from '../config.js';

/**
 * The most output tokens a provider call of the service may write: sent with every call
 * (Anthropic's `max_tokens`, OpenAI's `max_completion_tokens`, Bedrock's `maxTokens`), and
 * what the usage ledger holds for a call at the output price — so no call can cost more
 * than it held (docs/aws.md, "The usage ledger").
 */
export const OUTPUT_TOKEN_CAP = 8192;

/**
 * The provider a session's turns use, from the model it chose (absent parts: the server's
 * default). Contract: returns a provider, or throws without side effects —
 * `UnknownProviderError` for a name no factory knows, `ProviderNotConfiguredError` for one
 * this server holds no key for, and with `check` (a client's choice: creating a session,
 * changing its model) `UnsupportedModelError` for a model the provider does not offer;
 * called once per request that talks to a model.
 */
export type ProviderResolver = (selection: Partial<ActiveModel>, options?: { check?: boolean }) => Provider;

/**
 * The service's provider resolver: the configured provider and model by default, each
 * provider with its configured key and base URL (a provider without a key is refused by
 * `deferredProvider` itself, before any request; the provider's code is loaded by its first
 * call, not at a cold start). A client's choice of model is checked against
 * the catalog in @panto/core (`KNOWN_MODELS`) plus `extraModels`, unless the provider has a
 * base URL here: an OpenAI- or Anthropic-compatible server of one's own names its own models.
 * Bedrock gets the region and endpoint of `config.bedrock` (its credentials are the SDK's
 * chain); where the deployment lists the Bedrock models its role may call, only those.
 * Every provider is sent {@link OUTPUT_TOKEN_CAP} as its output cap.
 *
 * @example
 * const providers = providerResolver(config.provider);
 * providers({ provider: 'openai', model: 'gpt-x' });
 */
export function providerResolver(config: ProviderConfig): ProviderResolver {
  const built = new BuiltProviders(BUILT_PROVIDERS);
  return (selection, options = {}) => {
    const provider = selection.provider ?? config.provider;
    const model = selection.model ?? (provider === config.provider ? config.model : undefined);
    const apiKey = config.apiKeys[provider];
    const baseURL = config.baseURLs[provider];
    // Only a model the client named is judged (the server's default was, at start), and only
    // a vendor's: a server of one's own (a base URL) names its own models.
    if (options.check && selection.model !== undefined && baseURL === undefined) {
      assertModelOffered(provider, selection.model, { extra: config.extraModels });
      const allowed = provider === 'bedrock' ? config.bedrock?.models : undefined;
      if (allowed !== undefined && !allowed.includes(selection.model)) {
        throw new UnsupportedModelError(provider, selection.model, { reason: 'unknown', known: allowed });
      }
    }
    return built.get(`${provider}\n${model ?? ''}`, () =>
      provider === 'bedrock'
        ? bedrockProvider(config, model)
        : deferredProvider({
            provider,
            maxTokens: OUTPUT_TOKEN_CAP,
            ...(model === undefined ? {} : { model }),
            ...(apiKey === undefined ? {} : { apiKey }),
            ...(baseURL === undefined ? {} : { baseURL }),
          }),
    );
  };
}

/** How many providers a resolver keeps built (a base URL's server may name any model, so it is bounded). */
const BUILT_PROVIDERS = 16;

/**
 * The providers a resolver built, by provider and model, the least recently used dropped past
 * `max`. A provider holds nothing of a call (each `stream` is its own), so every turn of a
 * warm process can share one — and with it its SDK client and that client's connections,
 * which were built anew for every turn.
 */
class BuiltProviders {
  readonly #providers = new Map<string, Provider>();
  constructor(private readonly max: number) {}

  get(key: string, build: () => Provider): Provider {
    const cached = this.#providers.get(key);
    if (cached !== undefined) {
      this.#providers.delete(key);
      this.#providers.set(key, cached);
      return cached;
    }
    const provider = build();
    this.#providers.set(key, provider);
    for (const oldest of this.#providers.keys()) {
      if (this.#providers.size <= this.max) break;
      this.#providers.delete(oldest);
    }
    return provider;
  }
}

/**
 * The Bedrock provider, when this server can call Bedrock (on AWS, or `PANTO_PROVIDER=bedrock`);
 * a session that chose Bedrock on a server that cannot is `ProviderNotConfiguredError`, like a
 * provider without its key.
 */
function bedrockProvider(config: ProviderConfig, model: string | undefined): Provider {
  const bedrock = config.bedrock;
  if (bedrock === undefined) {
    throw new ProviderNotConfiguredError('bedrock', 'this server does not call Amazon Bedrock (it does on AWS, or with PANTO_PROVIDER=bedrock)');
  }
  return deferredProvider({
    provider: 'bedrock',
    maxTokens: OUTPUT_TOKEN_CAP,
    ...(model === undefined ? {} : { model }),
    ...(bedrock.region === undefined ? {} : { region: bedrock.region }),
    ...(bedrock.endpoint === undefined ? {} : { baseURL: bedrock.endpoint }),
  });
}
