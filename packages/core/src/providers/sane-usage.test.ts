import { describe, expect, it } from 'vitest';
import { MAX_CALL_TOKENS, saneUsage } from './sane-usage.js';

const usage = (input_tokens: number, output_tokens: number, cache_read_tokens = 0, cache_write_tokens = 0) => ({
  input_tokens,
  output_tokens,
  cache_read_tokens,
  cache_write_tokens,
});

describe('saneUsage', () => {
  it('keeps usage that is already whole numbers in range, unclamped', () => {
    expect(saneUsage(usage(1000, 100, 20, 5))).toEqual({ usage: usage(1000, 100, 20, 5), clamped: false });
  });

  it('counts negative and not-a-number counts as 0, rounds fractions up, and caps absurd counts at the ceiling (charging more, never less)', () => {
    expect(saneUsage(usage(-5, -1e8, Number.NaN, 0.2))).toEqual({ usage: usage(0, 0, 0, 1), clamped: true });
    expect(saneUsage(usage(1e12, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 7))).toEqual({
      usage: usage(MAX_CALL_TOKENS, MAX_CALL_TOKENS, 0, 7),
      clamped: true,
    });
    // A provider's JSON may carry a string where a number belongs.
    expect(saneUsage({ ...usage(1, 1), output_tokens: '9' as unknown as number }).usage.output_tokens).toBe(0);
  });
});
