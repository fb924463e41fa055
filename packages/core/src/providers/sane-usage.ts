/**
 * Usage as panto records it. A provider's usage is the provider's word, and a broken or
 * hostile server (an OpenAI-compatible one of one's own) can send anything: a negative count
 * would lower a spend, a huge one overflow a total, a fraction or a string break every sum.
 * Where a call's usage enters panto (the message assembler every provider builds its
 * messages with) each of its four counts becomes a whole number from 0 to
 * {@link MAX_CALL_TOKENS}: what is negative or not a number counts as 0, a fraction is
 * rounded up, and anything above the ceiling counts as the ceiling — a spend is counted
 * more, never less, than a sane reading of what was sent. The rest of what the provider said
 * is dropped: the session's log, its usage and a service's ledger all hold the clamped counts.
 */
import type { Usage } from '../messages.js';

/** Tokens of one count of one provider call above which usage is no real usage: 10 million, beyond any model's context window. */
export const MAX_CALL_TOKENS = 10_000_000;

const COUNTS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'] as const;

/**
 * `usage` with each count made a whole number from 0 to {@link MAX_CALL_TOKENS}; `clamped`
 * when any count was not one.
 *
 * @example
 * saneUsage({ input_tokens: 10, output_tokens: -1e8, cache_read_tokens: 0, cache_write_tokens: 0 }).usage.output_tokens; // 0
 */
export function saneUsage(usage: Usage): { usage: Usage; clamped: boolean } {
  const sane = { ...usage };
  let clamped = false;
  for (const count of COUNTS) {
    const raw: unknown = usage[count];
    // NaN and what is not a number count as 0; Infinity (JSON's 1e400) as the ceiling.
    const value = typeof raw === 'number' && !Number.isNaN(raw) ? Math.min(Math.max(Math.ceil(raw), 0), MAX_CALL_TOKENS) : 0;
    if (value !== raw) clamped = true;
    sane[count] = value;
  }
  return { usage: sane, clamped };
}
