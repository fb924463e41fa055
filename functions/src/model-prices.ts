/**
 * The prices the usage ledger counts a turn at: the operator's own (`PANTO_MODEL_PRICES`),
 * else the catalog's in @panto/core. The operator's are how a model the catalog has no
 * price for — a dated snapshot (`gpt-5.4-2026-03-05`), a model of a server of one's own —
 * can run while a dollar budget applies; without a price such a turn is refused, since its
 * spend could not be counted.
 */
import { costAt, findModel, isValidModelName, MODEL_NAME_RULE, type ModelPrices, type Usage } from '@panto/core/agent-kit';

/** Prices by `provider/model`, in US dollars per million tokens. */
export type ModelPriceTable = Readonly<Record<string, ModelPrices>>;

/** A price above this (dollars per million tokens) is taken for a typo. */
const MAX_PRICE = 10_000;
const FIELDS = { input: 'input', output: 'output', cache_read: 'cacheRead', cache_write: 'cacheWrite' } as const;

/**
 * `PANTO_MODEL_PRICES`: a JSON object from `provider/model` to its prices in US dollars per
 * million tokens, `{ "input", "output", "cache_read"?, "cache_write"? }` (an absent cache price
 * is the input price). Throws a clear error naming what is wrong; `{}` when unset.
 *
 * @example
 * parseModelPrices('{"openai/gpt-5.4-2026-03-05": {"input": 2.5, "output": 15, "cache_read": 0.25}}');
 */
export function parseModelPrices(text: string | undefined): ModelPriceTable {
  if (text === undefined || text.trim() === '') return {};
  const problem = (what: string): Error =>
    new Error(
      `PANTO_MODEL_PRICES: ${what} (a JSON object like {"openai/gpt-x": {"input": 2.5, "output": 15, "cache_read": 0.25}}, dollars per million tokens)`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw problem('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw problem('not a JSON object');
  const table: Record<string, ModelPrices> = {};
  for (const [name, value] of Object.entries(parsed)) {
    const slash = name.indexOf('/');
    if (slash < 1 || !/^[a-z0-9][a-z0-9_-]*$/.test(name.slice(0, slash)) || !isValidModelName(name.slice(slash + 1))) {
      throw problem(`${JSON.stringify(name)} is not provider/model (a model name: ${MODEL_NAME_RULE})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw problem(`the prices of ${name} are not an object`);
    const prices: Partial<Record<keyof ModelPrices, number>> = {};
    for (const [field, price] of Object.entries(value as Record<string, unknown>)) {
      const key = FIELDS[field as keyof typeof FIELDS];
      if (key === undefined) throw problem(`${name}: unknown field ${JSON.stringify(field)} (input, output, cache_read, cache_write)`);
      if (typeof price !== 'number' || !Number.isFinite(price) || price < 0 || price > MAX_PRICE) {
        throw problem(`${name}.${field} must be a number from 0 to ${MAX_PRICE}`);
      }
      prices[key] = price;
    }
    if (prices.input === undefined || prices.output === undefined) throw problem(`${name} needs both input and output`);
    table[name] = { input: prices.input, output: prices.output, cacheRead: prices.cacheRead ?? prices.input, cacheWrite: prices.cacheWrite ?? prices.input };
  }
  return table;
}

/** The prices of `provider/model`: the operator's, else the catalog's; undefined when neither has any. */
export function pricesOf(table: ModelPriceTable, provider: string, model: string): ModelPrices | undefined {
  return table[`${provider}/${model}`] ?? findModel(provider, model)?.prices;
}

/** What `usage` cost at the prices of `provider/model` (see {@link pricesOf}); undefined when it has none. */
export function priceUsage(table: ModelPriceTable, provider: string, model: string, usage: Usage): number | undefined {
  const prices = pricesOf(table, provider, model);
  return prices === undefined ? undefined : costAt(prices, usage);
}
