import { describe, expect, it } from 'vitest';
import { ageText, unknownCostNote, usageReportText, usageText } from './format.js';

describe('ageText', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  it('says how long ago, in the largest whole unit, and the date past a month', () => {
    expect(ageText('2026-12-01T11:59:30Z', now)).toBe('just now');
    expect(ageText('2026-12-01T11:55:00Z', now)).toBe('5 min ago');
    expect(ageText('2026-12-01T09:00:00Z', now)).toBe('3 h ago');
    expect(ageText('2026-11-29T12:00:00Z', now)).toBe('2 d ago');
    expect(ageText('2026-09-01T12:00:00Z', now)).toBe('2026-09-01');
  });
});

describe('usage', () => {
  it('prints cached tokens only when there are some', () => {
    const one = { input_tokens: 1200, output_tokens: 34, cache_read_tokens: 0, cache_write_tokens: 0 };
    expect(usageText(one)).toBe('1,200 in · 34 out');
    expect(usageText({ ...one, cache_read_tokens: 500, cache_write_tokens: 10 })).toBe('1,200 in · 34 out · 510 cached');
  });
});

describe('usageReportText', () => {
  const totals = {
    usd: 0.01234,
    input_tokens: 10,
    output_tokens: 5,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    turns: 3,
    usd_unknown_turns: 0,
    reserved_usd: 0,
  };
  const report = {
    today: totals,
    month: { ...totals, usd: 4.5, turns: 40, usd_unknown_turns: 2 },
    limits: { daily_usd: 5, monthly_usd: null, turns_per_minute: null, concurrent_turns: null },
    resets: { day: '2026-12-03T00:00:00.000Z', month: '2027-01-01T00:00:00.000Z' },
  };

  it('says today’s spend against the daily budget, the turns, and the month’s spend — and in words which turns have no known cost', () => {
    expect(usageReportText(report)).toBe('Today $0.0123 of $5.00 · 3 turns · this month $4.50 (cost unknown for 2 turns)');
    const local = { ...report, today: { ...totals, usd: 0, turns: 16, usd_unknown_turns: 13 } };
    expect(usageReportText(local)).toBe('Today $0.0000 of $5.00 · 16 turns, cost unknown for 13 · this month $4.50 (cost unknown for 2 turns)');
    const offline = { ...report, today: { ...totals, usd: 0, turns: 1, usd_unknown_turns: 1 }, month: { ...totals, usd: 0, turns: 1, usd_unknown_turns: 1 } };
    expect(usageReportText(offline)).toBe('Today $0.0000 of $5.00 · 1 turn, cost unknown · this month $0.0000 (cost unknown)');
    expect(usageReportText(local)).not.toContain('unpriced');
    expect(unknownCostNote(local)).toMatch(/without a known price/);
    expect(unknownCostNote({ ...report, month: totals })).toBeNull();
  });

  it('says what turns running hold besides today’s spend', () => {
    expect(usageReportText({ ...report, today: { ...totals, reserved_usd: 0.1255 } })).toBe(
      'Today $0.0123 (+$0.1255 reserved) of $5.00 · 3 turns · this month $4.50 (cost unknown for 2 turns)',
    );
  });
});
