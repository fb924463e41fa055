import { describe, expect, it } from 'vitest';
import { parseModelPrices, pricesOf, priceUsage } from './model-prices.js';

describe('PANTO_MODEL_PRICES', () => {
  it('reads prices by provider/model in dollars per million tokens; an absent cache price is the input price', () => {
    const table = parseModelPrices('{"openai/gpt-5.4-2026-03-05": {"input": 2.5, "output": 15, "cache_read": 0.25}}');
    expect(table).toEqual({ 'openai/gpt-5.4-2026-03-05': { input: 2.5, output: 15, cacheRead: 0.25, cacheWrite: 2.5 } });
    expect(parseModelPrices(undefined)).toEqual({});
    expect(parseModelPrices('  ')).toEqual({});
  });

  it('refuses what is not a price table with an error naming what is wrong', () => {
    expect(() => parseModelPrices('{')).toThrow(/PANTO_MODEL_PRICES: not JSON/);
    expect(() => parseModelPrices('[]')).toThrow(/not a JSON object/);
    expect(() => parseModelPrices('{"gpt-x": {"input": 1, "output": 2}}')).toThrow(/"gpt-x" is not provider\/model/);
    expect(() => parseModelPrices('{"openai/gpt x": {"input": 1, "output": 2}}')).toThrow(/is not provider\/model/);
    expect(() => parseModelPrices('{"openai/gpt-x": {"input": 1}}')).toThrow(/needs both input and output/);
    expect(() => parseModelPrices('{"openai/gpt-x": {"input": -1, "output": 2}}')).toThrow(/input must be a number from 0 to 10000/);
    expect(() => parseModelPrices('{"openai/gpt-x": {"input": 1, "output": "2"}}')).toThrow(/output must be a number/);
    expect(() => parseModelPrices('{"openai/gpt-x": {"input": 1, "output": 2, "outputs": 3}}')).toThrow(/unknown field "outputs"/);
  });

  it("counts a call at the operator's price before the catalog's, and knows none for a model neither prices", () => {
    const table = parseModelPrices('{"openai/gpt-5.4": {"input": 1, "output": 1}, "openai/mine": {"input": 2, "output": 4}}');
    const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000, cache_read_tokens: 0, cache_write_tokens: 0 };
    expect(priceUsage(table, 'openai', 'gpt-5.4', usage)).toBe(2);
    expect(priceUsage(table, 'openai', 'mine', usage)).toBe(6);
    expect(pricesOf({}, 'openai', 'gpt-5.4')).toMatchObject({ input: 2.5, output: 15 });
    expect(priceUsage(table, 'openai', 'gpt-5.4-2026-03-05', usage)).toBeUndefined();
  });
});
