import { describe, expect, it } from 'vitest';
import { UnsupportedModelError } from '../errors.js';
import { PROVIDER_NAMES } from './names.js';
import { assertModelOffered, DEFAULT_MODELS, findModel, KNOWN_MODELS, modelStatus, usageCost } from './models.js';

describe('the model catalog', () => {
  it('holds every default model, active, with its prices', () => {
    for (const provider of PROVIDER_NAMES) {
      const info = findModel(provider, DEFAULT_MODELS[provider]);
      expect(info, provider).toBeDefined();
      expect(modelStatus(info!, '2026-12-01'), provider).toBe('active');
      expect(info!.prices, provider).toBeDefined();
    }
  });

  it('lists each model once, with a source, and a replacement that is itself offered', () => {
    const keys = KNOWN_MODELS.map((info) => `${info.provider}/${info.id}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const info of KNOWN_MODELS) {
      expect(info.source, info.id).not.toBe('');
      if (info.replacement !== undefined) {
        expect(modelStatus(findModel(info.provider, info.replacement)!, '2026-12-01'), info.id).toBe('active');
      }
    }
  });

  it('counts a deprecated model as retired from its retirement day on', () => {
    const gpt5 = findModel('openai', 'gpt-5')!;
    expect(modelStatus(gpt5, '2026-12-10')).toBe('deprecated');
    expect(modelStatus(gpt5, '2026-12-11')).toBe('retired');
  });
});

describe('assertModelOffered', () => {
  it('accepts a model the catalog lists for its provider', () => {
    expect(assertModelOffered('anthropic', 'claude-haiku-4-5', { day: '2026-12-01' })?.id).toBe('claude-haiku-4-5');
    expect(assertModelOffered('openai', 'gpt-5', { day: '2026-12-10' })?.status).toBe('deprecated');
  });

  it("throws UnsupportedModelError for another provider's model, naming what it offers", () => {
    const error = catchError(() => assertModelOffered('offline', 'claude-opus', { day: '2026-12-01' }));
    expect(error).toBeInstanceOf(UnsupportedModelError);
    expect(error).toMatchObject({ provider: 'offline', model: 'claude-opus', reason: 'unknown', known: ['offline-1'] });
    expect((error as Error).message).toBe('unknown offline model "claude-opus": expected one of offline-1');
  });

  it('throws UnsupportedModelError for a retired model, naming its replacement', () => {
    const error = catchError(() => assertModelOffered('anthropic', 'claude-sonnet-4-5', { day: '2026-12-01' }));
    expect(error).toMatchObject({ reason: 'retired', retiredOn: '2026-11-30', replacement: 'claude-sonnet-5-5' });
    expect((error as Error).message).toBe('anthropic retired "claude-sonnet-4-5" on 2026-11-30; use "claude-sonnet-5-5"');
    expect(() => assertModelOffered('openai', 'gpt-5', { day: '2026-12-11' })).toThrow(/retired "gpt-5" on 2026-12-11; use "gpt-5.4"/);
  });

  it('accepts a model named in extra, and leaves providers it does not know to createProvider', () => {
    expect(assertModelOffered('openai', 'gpt-5.5', { extra: ['openai/gpt-5.5'] })).toBeUndefined();
    expect(() => assertModelOffered('anthropic', 'gpt-5.5', { extra: ['openai/gpt-5.5'] })).toThrow(UnsupportedModelError);
    expect(assertModelOffered('mistral', 'large')).toBeUndefined();
  });
});

describe('usageCost', () => {
  it('prices each kind of token at its list price, in dollars', () => {
    const usage = {
      input_tokens: 1_000_000,
      output_tokens: 100_000,
      cache_read_tokens: 2_000_000,
      cache_write_tokens: 400_000,
    };
    // 2 + 1 + 0.4 + 1
    expect(usageCost('anthropic', 'claude-sonnet-5-5', usage)).toBeCloseTo(4.4, 10);
    expect(usageCost('offline', 'offline-1', usage)).toBe(0);
  });

  it('is undefined for a model without known prices', () => {
    const usage = { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 };
    expect(usageCost('anthropic', 'claude-sonnet-4-5', usage)).toBeUndefined();
    expect(usageCost('openai', 'my-own-model', usage)).toBeUndefined();
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
