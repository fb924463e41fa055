/**
 * A provider whose code is loaded at its first call: what a host that starts cold (a Lambda
 * function) builds, so that none of the four providers' code is evaluated before a turn
 * needs one — and then only the chunk with the providers, not their SDKs until the one in use
 * calls its own (see sdk-client.ts).
 */
import type { CreateProviderOptions } from './factory.js';
import { DEFAULT_MODELS } from './models.js';
import { checkProviderOptions } from './names.js';
import type { Provider, ProviderCallOptions, ProviderEvent, ProviderRequest } from './provider.js';

/** A provider built at its first call; `load` builds it now (once), for a caller that wants the provider itself. */
export interface DeferredProvider extends Provider {
  load(): Promise<Provider>;
}

/**
 * `createProvider(options)`, built when its `stream` is first called. Throws what
 * `createProvider` throws at once — {@link UnknownProviderError}, {@link ProviderNotConfiguredError} —
 * and has its `name` and `model` from the start.
 *
 * @example
 * const provider = deferredProvider({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
 */
export function deferredProvider(options: CreateProviderOptions): DeferredProvider {
  checkProviderOptions(options);
  let built: Promise<Provider> | undefined;
  /** The provider once built: its calls go to it directly, not through a generator of this one's. */
  let ready: Provider | undefined;
  const load = (): Promise<Provider> => {
    built ??= import('./factory.js').then(({ createProvider }) => createProvider(options)).then((provider) => (ready = provider));
    return built;
  };
  async function* loadThenStream(request: ProviderRequest, callOptions: ProviderCallOptions): AsyncGenerator<ProviderEvent> {
    yield* (await load()).stream(request, callOptions);
  }
  return {
    name: options.provider,
    model: options.model ?? DEFAULT_MODELS[options.provider],
    load,
    stream: (request, callOptions) => (ready === undefined ? loadThenStream(request, callOptions) : ready.stream(request, callOptions)),
  };
}
