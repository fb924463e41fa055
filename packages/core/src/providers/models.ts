/**
 * The models panto knows, per provider: their lifecycle status and their list prices. The
 * one place model names live — `DEFAULT_MODELS`, the service's check of a client's choice,
 * and the CLI's cost per turn all read it.
 *
 * Read on {@link MODELS_READ_ON} from the vendors' published model, deprecation and pricing
 * pages (Anthropic: platform.claude.com "Models overview", "Model deprecations", "Pricing";
 * OpenAI: developers.openai.com "Models", "Deprecations", "Pricing"; Amazon Bedrock: see
 * bedrock-models.ts), without network access
 * to re-check them: only facts the maintainers were confident of are here. A price that was
 * not is left out (`prices` absent), never guessed. Update the entry, its `source`, and
 * MODELS_READ_ON together.
 */
import { UnsupportedModelError } from '../errors.js';
import type { Usage } from '../messages.js';
import { BEDROCK_MODELS, DEFAULT_BEDROCK_MODEL } from './bedrock-models.js';
import type { ModelInfo, ModelPrices, ModelStatus } from './model-info.js';
import type { ProviderName } from './names.js';

/** The date the facts below were read. */
export const MODELS_READ_ON = '2026-12-01';

const ANTHROPIC_MODELS = 'platform.claude.com models overview and pricing, read 2026-12-01';
const OPENAI_MODELS = 'developers.openai.com models and pricing, read 2026-12-01';

/** The model each provider uses when none is given: each is in {@link KNOWN_MODELS} and `active` (a test holds them to it). */
export const DEFAULT_MODELS: Readonly<Record<ProviderName, string>> = {
  anthropic: 'claude-sonnet-5-5',
  openai: 'gpt-5.4',
  bedrock: DEFAULT_BEDROCK_MODEL,
  offline: 'offline-1',
};

/** Every model panto knows. */
export const KNOWN_MODELS: readonly ModelInfo[] = [
  {
    provider: 'anthropic',
    id: 'claude-sonnet-5-5',
    status: 'active',
    prices: { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
    source: ANTHROPIC_MODELS,
  },
  {
    provider: 'anthropic',
    id: 'claude-sonnet-5',
    status: 'legacy',
    prices: { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
    source: ANTHROPIC_MODELS,
  },
  {
    provider: 'anthropic',
    id: 'claude-sonnet-4-6',
    status: 'legacy',
    prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    source: ANTHROPIC_MODELS,
  },
  {
    provider: 'anthropic',
    id: 'claude-haiku-4-5',
    status: 'active',
    prices: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    source: ANTHROPIC_MODELS,
  },
  {
    provider: 'anthropic',
    id: 'claude-sonnet-4-5',
    status: 'retired',
    retiresOn: '2026-11-30',
    replacement: 'claude-sonnet-5-5',
    source: 'retired 2026-11-30 as reported in the panto issue "Deployable by anyone"; Anthropic model deprecations page not re-read',
  },
  {
    provider: 'openai',
    id: 'gpt-5.4',
    status: 'active',
    prices: { input: 2.5, output: 15, cacheRead: 0.25, cacheWrite: 2.5 },
    source: OPENAI_MODELS,
  },
  {
    provider: 'openai',
    id: 'gpt-5.4-mini',
    status: 'active',
    prices: { input: 0.75, output: 4.5, cacheRead: 0.075, cacheWrite: 0.75 },
    source: OPENAI_MODELS,
  },
  {
    provider: 'openai',
    id: 'gpt-5',
    status: 'deprecated',
    retiresOn: '2026-12-11',
    replacement: 'gpt-5.4',
    prices: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    source: 'developers.openai.com deprecations (notice of 2026-06-11) and pricing, read 2026-12-01',
  },
  ...BEDROCK_MODELS,
  {
    provider: 'offline',
    id: 'offline-1',
    status: 'active',
    prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    source: 'panto itself: canned replies, no vendor',
  },
];

/** The catalog entry of `provider`/`model`, if panto knows it. */
export function findModel(provider: string, model: string): ModelInfo | undefined {
  return KNOWN_MODELS.find((info) => info.provider === provider && info.id === model);
}

/** The status of a model on `day` (an ISO date, default today): a deprecated model past its `retiresOn` is retired. */
export function modelStatus(info: ModelInfo, day: string = new Date().toISOString().slice(0, 10)): ModelStatus {
  return info.retiresOn !== undefined && day >= info.retiresOn ? 'retired' : info.status;
}

/**
 * What a usage costs at a model's list prices, in US dollars; undefined when panto does not
 * know the model or its prices. `usage.input_tokens` excludes cached tokens, as every
 * provider in panto reports it.
 *
 * @example
 * usageCost('anthropic', 'claude-sonnet-5-5', step.usage); // 0.0123
 */
export function usageCost(provider: string, model: string, usage: Usage): number | undefined {
  const prices = findModel(provider, model)?.prices;
  return prices === undefined ? undefined : costAt(prices, usage);
}

/**
 * What a usage costs at `prices`, in US dollars (for prices that are not the catalog's: an
 * operator's own).
 *
 * @example
 * costAt({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, step.usage); // 0.0123
 */
export function costAt(prices: ModelPrices, usage: Usage): number {
  return (
    (usage.input_tokens * prices.input +
      usage.output_tokens * prices.output +
      usage.cache_read_tokens * prices.cacheRead +
      usage.cache_write_tokens * prices.cacheWrite) /
    1_000_000
  );
}

/** What a model name may be, in words (for an error message). */
export const MODEL_NAME_RULE = 'letters, digits and . _ : / @ + - only, starting with a letter or digit, at most 200 characters';
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}$/;

/**
 * Whether `name` can be a model name: the characters every vendor's, Bedrock's (`us.…:0`,
 * ARNs), Ollama's (`llama3.1:8b`) and Hugging Face's (`org/model`) names use. A name with a
 * control character, a space, markup or `__proto__` is not one, even for a server of one's own.
 */
export function isValidModelName(name: string): boolean {
  return MODEL_NAME.test(name);
}

export interface ModelCheckOptions {
  /**
   * `provider/model` names to accept besides the catalog (an operator's escape for a model
   * the catalog does not list yet, e.g. `PANTO_EXTRA_MODELS`).
   */
  extra?: readonly string[];
  /** The day to judge retirement on (ISO date); today when absent. */
  day?: string;
}

/**
 * Refuses a model `provider` does not offer, as far as panto knows: one missing from the
 * catalog (and from `options.extra`), or one past its retirement. Providers panto does not
 * ship are not judged here (`createProvider` refuses them). Throws
 * {@link UnsupportedModelError}; returns the entry when the catalog has one.
 *
 * @example
 * assertModelOffered('offline', 'claude-opus'); // throws UnsupportedModelError
 */
export function assertModelOffered(provider: string, model: string, options: ModelCheckOptions = {}): ModelInfo | undefined {
  const info = findModel(provider, model);
  if (info === undefined) {
    if (options.extra?.includes(`${provider}/${model}`)) return undefined;
    if (!KNOWN_MODELS.some((known) => known.provider === provider)) return undefined;
    const offered = KNOWN_MODELS.filter((known) => known.provider === provider && modelStatus(known, options.day) !== 'retired');
    throw new UnsupportedModelError(provider, model, {
      reason: 'unknown',
      known: offered.map((known) => known.id),
    });
  }
  if (modelStatus(info, options.day) === 'retired') {
    throw new UnsupportedModelError(provider, model, {
      reason: 'retired',
      known: [],
      ...(info.retiresOn === undefined ? {} : { retiredOn: info.retiresOn }),
      ...(info.replacement === undefined ? {} : { replacement: info.replacement }),
    });
  }
  return info;
}
