/** Small formatting helpers for the page. */
import type { Usage, UsageReport } from './api/wire.js';

/** "just now", "5 min ago", "3 h ago", "2 d ago", or the date. */
export function ageText(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  if (seconds < 30 * 86_400) return `${Math.floor(seconds / 86_400)} d ago`;
  return new Date(iso).toISOString().slice(0, 10);
}

/** Two usages added field by field. */
export function sumUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
  };
}

export const NO_USAGE: Usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };

/** "1,234 in · 56 out" (+ cached when any). */
export function usageText(usage: Usage): string {
  const n = (value: number): string => value.toLocaleString('en-US');
  const cached = usage.cache_read_tokens + usage.cache_write_tokens;
  return `${n(usage.input_tokens)} in · ${n(usage.output_tokens)} out${cached > 0 ? ` · ${n(cached)} cached` : ''}`;
}

/** Dollars as the page shows spend: cents from a dollar on, else four decimals ("$0.0123", "$4.56"). */
export function dollars(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** "Today $0.0123 of $5.00 · 3 turns · this month $0.2000": what `GET /usage` says, in one line. */
export function usageReportText({ today, month, limits }: UsageReport): string {
  const of = (limit: number | null): string => (limit === null ? '' : ` of ${dollars(limit)}`);
  const unpriced = (turns: number): string => (turns > 0 ? ` (+${turns} unpriced)` : '');
  const turns = `${today.turns} turn${today.turns === 1 ? '' : 's'}`;
  const reserved = today.reserved_usd > 0 ? ` (+${dollars(today.reserved_usd)} reserved)` : '';
  return `Today ${dollars(today.usd)}${reserved}${of(limits.daily_usd)}${unpriced(today.usd_unknown_turns)} · ${turns} · this month ${dollars(month.usd)}${of(limits.monthly_usd)}${unpriced(month.usd_unknown_turns)}`;
}
