// How the SDK-based providers reach their SDK: imported on first use and remembered, so that
// importing a provider does not load its SDK (a Lambda that never calls that provider never
// pays for it at cold start), and one client per provider built from it.

import type { KeyedProviderOptions } from './provider-options.js';

/** A module imported on first use and remembered. */
export interface LazyModule<T> {
  load(): Promise<T>;
  /** The module once `load()` has resolved; undefined before. */
  readonly loaded: T | undefined;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let pending: Promise<T> | undefined;
  let loaded: T | undefined;
  return {
    load: () =>
      (pending ??= importer().then((module) => {
        loaded = module;
        return module;
      })),
    get loaded() {
      return loaded;
    },
  };
}

/** The connection settings both SDKs take, as a provider's options name them; `timeoutMs` is the request timeout (the SDKs' `timeout`). */
export type SDKConnection = Pick<KeyedProviderOptions, 'apiKey' | 'baseURL' | 'maxRetries'> & { timeoutMs: number };

/** The SDK client options for `connection`: what is unset is left to the SDK (its environment variables). */
export function sdkClientOptions(connection: SDKConnection): { apiKey?: string; baseURL?: string; timeout: number; maxRetries: number } {
  return {
    ...(connection.apiKey !== undefined ? { apiKey: connection.apiKey } : {}),
    ...(connection.baseURL !== undefined ? { baseURL: connection.baseURL } : {}),
    timeout: connection.timeoutMs,
    maxRetries: connection.maxRetries ?? 2,
  };
}

/**
 * The client `build` makes from `sdk`, built on the first call (loading the SDK is left out
 * of start-up) and the same client on every call after. A load or build that failed is tried
 * again on the next call.
 *
 * @example
 * const client = lazyClient(anthropicSDK, (sdk) => new sdk.default(sdkClientOptions(connection)));
 * const stream = (await client()).messages.create(body, { signal });
 */
export function lazyClient<T, C>(sdk: LazyModule<T>, build: (module: T) => C): () => Promise<C> {
  let client: Promise<C> | undefined;
  return () => {
    client ??= sdk.load().then(build);
    client.catch(() => (client = undefined));
    return client;
  };
}
