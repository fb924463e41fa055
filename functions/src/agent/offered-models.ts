/**
 * What `GET /models` answers: the providers this server can run (a key configured, or none
 * needed), the models a client may choose for each, and the server's default — so a client
 * (the web page's new-session form) offers only choices `POST /sessions` accepts. The model
 * names come from the one catalog in @panto/core (`KNOWN_MODELS`), plus `PANTO_EXTRA_MODELS`
 * and the configured default model.
 */
import { DEFAULT_MODELS, KNOWN_MODELS, modelStatus, PROVIDER_NAMES } from '@panto/core/agent-kit';
import type { ModelsJson } from '../api/response-schemas.js';
import type { ProviderConfig } from '../config.js';

/** What `GET /models` answers, as its response schema says (`models` in api/response-schemas.ts). */
export type OfferedModels = ModelsJson;
/** A provider a session may choose, with its models and its default. */
export type OfferedProvider = OfferedModels['providers'][number];
/** A model of a provider; `status` is the catalog's, `null` for a model the catalog does not list (an extra model, or the server's own default). */
export type OfferedModel = OfferedProvider['models'][number];

/** Providers that run without a key. */
const KEYLESS = new Set(['offline']);

/**
 * The choices `config` offers on `day` (ISO date, default today): retired models are left
 * out; the default provider comes first.
 *
 * @example
 * offeredModels({ provider: 'offline', apiKeys: {}, baseURLs: {}, extraModels: [], reason: '' });
 * // { default: { provider: 'offline', model: 'offline-1' }, providers: [{ name: 'offline', … }] }
 */
export function offeredModels(config: ProviderConfig, day?: string): OfferedModels {
  const names = PROVIDER_NAMES.filter(
    (name) => name === config.provider || KEYLESS.has(name) || config.apiKeys[name] !== undefined || (name === 'bedrock' && config.bedrock !== undefined),
  );
  names.sort((a, b) => Number(b === config.provider) - Number(a === config.provider));
  const providers = names.map((name): OfferedProvider => {
    const defaultModel = name === config.provider && config.model !== undefined ? config.model : DEFAULT_MODELS[name];
    // Bedrock on a deployment that lists what its role may call: exactly those.
    const allowed = name === 'bedrock' ? config.bedrock?.models : undefined;
    const models: OfferedModel[] = KNOWN_MODELS.filter(
      (info) => info.provider === name && modelStatus(info, day) !== 'retired' && (allowed === undefined || allowed.includes(info.id)),
    ).map((info) => ({ id: info.id, status: modelStatus(info, day) }));
    const extra = config.extraModels.filter((each) => each.startsWith(`${name}/`)).map((each) => each.slice(name.length + 1));
    for (const id of [defaultModel, ...extra, ...(allowed ?? [])]) {
      if (!models.some((model) => model.id === id)) models.push({ id, status: null });
    }
    return { name, default_model: defaultModel, models, any_model: config.baseURLs[name] !== undefined };
  });
  const first = providers[0];
  return {
    default: { provider: config.provider, model: first?.name === config.provider ? first.default_model : (config.model ?? '') },
    providers,
  };
}
