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

const turnsText = (count: number): string => `${count} turn${count === 1 ? '' : 's'}`;

/** How many of the turns have no known cost, in words: "cost unknown" (all of them), "cost unknown for 2"; '' for none. */
function unknownCost({ turns, usd_unknown_turns: unknown }: UsageReport['today'], counted: (count: number) => string): string {
  if (unknown === 0) return '';
  return unknown >= turns ? 'cost unknown' : `cost unknown for ${counted(unknown)}`;
}

/**
 * "Today $0.0123 of $5.00 · 3 turns · this month $0.2000": what `GET /usage` says, in one line.
 * Turns on a model without a known price (a local model, one named by hand) count their tokens
 * but no dollars; the line says so in words: "3 turns, cost unknown for 2".
 */
export function usageReportText({ today, month, limits }: UsageReport): string {
  const of = (limit: number | null): string => (limit === null ? '' : ` of ${dollars(limit)}`);
  const todayUnknown = unknownCost(today, String);
  const monthUnknown = unknownCost(month, turnsText);
  const reserved = today.reserved_usd > 0 ? ` (+${dollars(today.reserved_usd)} reserved)` : '';
  return `Today ${dollars(today.usd)}${reserved}${of(limits.daily_usd)} · ${turnsText(today.turns)}${todayUnknown && `, ${todayUnknown}`} · this month ${dollars(month.usd)}${of(limits.monthly_usd)}${monthUnknown && ` (${monthUnknown})`}`;
}

/** Why some turns have no cost, for the usage line's tooltip; null when all have one. */
export function unknownCostNote({ today, month }: UsageReport): string | null {
  return today.usd_unknown_turns + month.usd_unknown_turns === 0
    ? null
    : 'Some turns used a model without a known price (a local model, or one named by hand): their tokens are counted, their cost is not in the dollars.';
}
