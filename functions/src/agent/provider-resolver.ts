import { assertModelOffered, createProvider, type ActiveModel, type Provider } from '@panto/core';
import type { ProviderConfig } from '../config.js';

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
 * `createProvider` itself, before any request). A client's choice of model is checked against
 * the catalog in @panto/core (`KNOWN_MODELS`) plus `extraModels`, unless the provider has a
 * base URL here: an OpenAI- or Anthropic-compatible server of one's own names its own models.
 *
 * @example
 * const providers = providerResolver(config.provider);
 * providers({ provider: 'openai', model: 'gpt-x' });
 */
export function providerResolver(config: ProviderConfig): ProviderResolver {
  return (selection, options = {}) => {
    const provider = selection.provider ?? config.provider;
    const model = selection.model ?? (provider === config.provider ? config.model : undefined);
    const apiKey = config.apiKeys[provider];
    const baseURL = config.baseURLs[provider];
    // Only a model the client named is judged (the server's default was, at start), and only
    // a vendor's: a server of one's own (a base URL) names its own models.
    if (options.check && selection.model !== undefined && baseURL === undefined) {
      assertModelOffered(provider, selection.model, { extra: config.extraModels });
    }
    return createProvider({
      provider,
      ...(model === undefined ? {} : { model }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(baseURL === undefined ? {} : { baseURL }),
    });
  };
}
