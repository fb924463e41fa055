import { createProvider, PantoError, type Provider } from '@panto/core';
import type { ProviderSettings } from './config.js';

/** A provider and model; absent parts mean the server's defaults. */
export interface ModelSelection {
  provider?: string;
  model?: string;
}

/**
 * Builds the provider for a request. Contract: returns a provider, or throws (an unknown
 * provider name, say) without side effects; called once per request that talks to a model.
 */
export type ProviderFactory = (selection: ModelSelection) => Provider;

/** Providers that need an API key. */
const KEYED = new Set(['anthropic', 'openai']);

/**
 * The service's provider factory: the configured provider and model by default, each
 * provider with its configured key and base URL.
 *
 * @example
 * const providers = providerFactory(config.provider);
 * providers({ provider: 'openai', model: 'gpt-x' });
 */
export function providerFactory(settings: ProviderSettings): ProviderFactory {
  return (selection) => {
    const provider = selection.provider ?? settings.provider;
    const model = selection.model ?? (provider === settings.provider ? settings.model : undefined);
    const apiKey = settings.apiKeys[provider];
    const baseURL = settings.baseURLs[provider];
    // Fail here, with a clear reason, rather than with the vendor's 401 on the first turn.
    if (KEYED.has(provider) && apiKey === undefined && baseURL === undefined) {
      throw new PantoError(`provider ${provider} is not configured on this server (no API key)`);
    }
    return createProvider({
      provider,
      ...(model === undefined ? {} : { model }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(baseURL === undefined ? {} : { baseURL }),
    });
  };
}
