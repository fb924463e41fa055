/**
 * The Amazon Bedrock part of the model catalog (see models.ts): Converse model ids and the
 * cross-Region inference profiles over them (`us.`, `eu.`, `apac.` keep a request in one
 * geography; `global.` may route it to any commercial region).
 *
 * Read on MODELS_READ_ON from AWS's "Supported foundation models", "Supported cross-Region
 * inference profiles" and "Model lifecycle" pages and Anthropic's pricing page (Claude on
 * third-party platforms), as the maintainers knew them, without network access to re-check:
 * - Claude on Bedrock costs Anthropic's list prices; from Claude Sonnet 4.5 and Haiku 4.5 on,
 *   a geographic profile (and an in-region call) costs 10% more than the `global.` one.
 * - Amazon Nova, Meta and Mistral prices are left out: their cache prices were not known with
 *   confidence, and a price is never guessed.
 * - No end-of-life date of these models was known with confidence; none is given.
 * Claude models from Claude 4 on take only an inference profile, not their bare model id.
 */
import type { ModelInfo, ModelPrices } from './model-info.js';

const SOURCE = 'docs.aws.amazon.com Bedrock supported models and inference profiles; prices: Anthropic pricing (third-party platforms), read 2026-12-01';
const UNPRICED = 'docs.aws.amazon.com Bedrock supported models and inference profiles, read 2026-12-01; prices not known with confidence';

/** Anthropic's list prices, and the same 10% higher, as regional endpoints charge from Claude Sonnet 4.5 on. */
function claudePrices(input: number, output: number): { global: ModelPrices; regional: ModelPrices } {
  const prices = (factor: number): ModelPrices => ({
    input: round(input * factor),
    output: round(output * factor),
    cacheRead: round(input * 0.1 * factor),
    cacheWrite: round(input * 1.25 * factor),
  });
  return { global: prices(1), regional: prices(1.1) };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** A Claude model under each of its inference profiles: `global.` at list price, the geographies at the regional price. */
function claude(
  model: string,
  status: ModelInfo['status'],
  prices: { global: ModelPrices; regional: ModelPrices },
  profiles: readonly ('global' | 'us' | 'eu' | 'apac')[],
): ModelInfo[] {
  return profiles.map((profile) => ({
    provider: 'bedrock',
    id: `${profile}.${model}`,
    status,
    prices: profile === 'global' ? prices.global : prices.regional,
    source: SOURCE,
  }));
}

const SONNET = claudePrices(3, 15);
const HAIKU = claudePrices(1, 5);
const OPUS = claudePrices(5, 25);
/** Claude Sonnet 4 predates the regional premium: one price everywhere. */
const SONNET_4 = { global: SONNET.global, regional: SONNET.global };

function unpriced(id: string): ModelInfo {
  return { provider: 'bedrock', id, status: 'active', source: UNPRICED };
}

/** The model `bedrock` uses when none is given: Claude Sonnet 4.6 through its global profile, callable from every commercial region. */
export const DEFAULT_BEDROCK_MODEL = 'global.anthropic.claude-sonnet-4-6';

/** Every Bedrock model panto knows. */
export const BEDROCK_MODELS: readonly ModelInfo[] = [
  ...claude('anthropic.claude-sonnet-4-6', 'active', SONNET, ['global', 'us', 'eu']),
  ...claude('anthropic.claude-opus-4-6-v1', 'active', OPUS, ['global', 'us', 'eu']),
  ...claude('anthropic.claude-haiku-4-5-20251001-v1:0', 'active', HAIKU, ['global', 'us', 'eu']),
  ...claude('anthropic.claude-sonnet-4-5-20250929-v1:0', 'legacy', SONNET, ['global', 'us', 'eu']),
  ...claude('anthropic.claude-sonnet-4-20250514-v1:0', 'legacy', SONNET_4, ['us', 'eu', 'apac']),
  ...['amazon.nova-pro-v1:0', 'amazon.nova-lite-v1:0', 'amazon.nova-micro-v1:0'].flatMap((model) =>
    [model, `us.${model}`, `eu.${model}`, `apac.${model}`].map(unpriced),
  ),
  unpriced('us.meta.llama3-3-70b-instruct-v1:0'),
  unpriced('mistral.mistral-large-2407-v1:0'),
];
