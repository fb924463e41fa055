/**
 * The usage ledger's items, under the owner's partition `OWNER#<owner>` (the sessions' META
 * items are under `SESSION#…`, so nothing else reads these):
 *
 * - `USAGE#D#2026-12-02` — the owner's totals for a UTC day (TTL: 40 days after it), and the
 *   holds of the turns in flight (one attribute each, `hold#<expiry ms>#<id>`: what it reserved);
 * - `USAGE#M#2026-12` — the same for a UTC month (TTL: about 13 months after it);
 * - `USAGE#R#2026-12-02T09:34` — turns started in a UTC minute (the rate window; TTL: 1 hour);
 * - `USAGE#GATE` — the owner's limit overrides and their version, and the turns in flight
 *   (a string set of `<expiry ms>#<lease id>`, for the concurrency limit).
 *
 * See docs/aws.md ("The usage ledger").
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ATTR } from '../table/attributes.js';
import { ownerPk } from '../table/keys.js';

export const USAGE_SK_PREFIX = 'USAGE#';
export const GATE_SK = 'USAGE#GATE';

/** The attributes of the ledger's items. Expressions name each as `#<name>`. */
export const LEDGER_ATTR = {
  // day and month totals
  /** Dollars of the committed usage whose price is known. */
  usd: 'usd',
  /** `usd` plus what turns in flight have reserved: what a budget is judged by. */
  chargedUsd: 'charged_usd',
  /** What turns in flight have reserved and not settled yet: the sum of the item's holds. */
  reservedUsd: 'reserved_usd',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  cacheReadTokens: 'cache_read_tokens',
  cacheWriteTokens: 'cache_write_tokens',
  turns: 'turns',
  /** Turns with a model whose price panto does not know: their tokens count, their dollars are not in `usd`. */
  usdUnknownTurns: 'usd_unknown_turns',
  // the gate
  limitsVersion: 'limits_version',
  dailyUsd: 'limit_daily_usd',
  monthlyUsd: 'limit_monthly_usd',
  turnsPerMinute: 'limit_turns_per_minute',
  concurrentTurns: 'limit_concurrent_turns',
  /** Turns in flight: `<expiry epoch ms>#<lease id>`, removed when each settles, ignored once expired. */
  slots: 'slots',
  expiresAt: ATTR.expiresAt,
} as const;

/**
 * The attribute a turn's (or a compaction's) reservation is held in on a day or month item,
 * `hold#<expiry epoch ms>#<id>`, worth the dollars it holds: removed when it settles, swept
 * (and subtracted) once expired — the holder crashed.
 */
export const HOLD_PREFIX = 'hold#';

export function holdName(expiresAt: number, id: string): string {
  return `${HOLD_PREFIX}${expiresAt}#${id}`;
}

/** A hold on a day or month item: its attribute, when it lapses (epoch ms), and the dollars it holds. */
export interface Hold {
  name: string;
  expiresAt: number;
  usd: number;
}

/** The holds a day or month item carries. */
export function decodeHolds(item: Record<string, AttributeValue> | undefined): Hold[] {
  const holds: Hold[] = [];
  for (const [name, value] of Object.entries(item ?? {})) {
    if (!name.startsWith(HOLD_PREFIX) || value.N === undefined) continue;
    holds.push({ name, expiresAt: Number(name.slice(HOLD_PREFIX.length).split('#', 1)[0]), usd: Number(value.N) });
  }
  return holds;
}

/** The limits of an owner; null is none. */
export interface OwnerLimits {
  dailyUsd: number | null;
  monthlyUsd: number | null;
  turnsPerMinute: number | null;
  concurrentTurns: number | null;
}

export const LIMIT_NAMES = ['dailyUsd', 'monthlyUsd', 'turnsPerMinute', 'concurrentTurns'] as const satisfies ReadonlyArray<keyof OwnerLimits>;

/** The attribute each limit's override is stored in. */
export const LIMIT_ATTR: Readonly<Record<keyof OwnerLimits, string>> = {
  dailyUsd: LEDGER_ATTR.dailyUsd,
  monthlyUsd: LEDGER_ATTR.monthlyUsd,
  turnsPerMinute: LEDGER_ATTR.turnsPerMinute,
  concurrentTurns: LEDGER_ATTR.concurrentTurns,
};

/** The largest limit there is: a million dollars a day or month, a million turns. */
export const MAX_LIMIT = 1_000_000;
/** The smallest dollar amount the ledger keeps (it stores ten decimals). */
export const USD_STEP = 1e-10;

/**
 * Why `value` cannot be the limit `name`, or null when it can: dollars from 0 to
 * {@link MAX_LIMIT} (0 refuses every turn; a positive amount below {@link USD_STEP} would be
 * stored as 0, so it is refused rather than changed), turns a whole number from 0 to {@link MAX_LIMIT}.
 */
export function limitProblem(name: keyof OwnerLimits, value: number): string | null {
  const dollars = name === 'dailyUsd' || name === 'monthlyUsd';
  if (!Number.isFinite(value) || value < 0 || value > MAX_LIMIT) {
    return dollars ? `a dollar amount from 0 to ${MAX_LIMIT}` : `a whole number from 0 to ${MAX_LIMIT}`;
  }
  if (!dollars && !Number.isInteger(value)) return `a whole number from 0 to ${MAX_LIMIT}`;
  if (dollars && value > 0 && value < USD_STEP) return `0 or at least $${USD_STEP.toFixed(10)} (the ledger keeps ten decimals)`;
  return null;
}

/** An owner's overrides as the gate holds them: a number, null (no limit, whatever the server's default), or absent (the default). */
export interface LimitOverrides {
  /** Bumped by each change; null while the owner has never had one. */
  version: number | null;
  values: Partial<OwnerLimits>;
}

export const NO_OVERRIDES: LimitOverrides = { version: null, values: {} };

/** The UTC periods a moment falls in, and when they end. */
export interface Periods {
  /** `2026-12-02` */
  day: string;
  /** `2026-12` */
  month: string;
  /** `2026-12-02T09:34` */
  minute: string;
  /** Epoch ms of the next UTC midnight, first of the month, and minute. */
  dayEnds: number;
  monthEnds: number;
  minuteEnds: number;
}

export function periodsOf(now: number): Periods {
  const date = new Date(now);
  const iso = date.toISOString();
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  return {
    day: iso.slice(0, 10),
    month: iso.slice(0, 7),
    minute: iso.slice(0, 16),
    dayEnds: Date.UTC(y, m, date.getUTCDate() + 1),
    monthEnds: Date.UTC(y, m + 1, 1),
    minuteEnds: Math.floor(now / 60_000) * 60_000 + 60_000,
  };
}

function key(owner: string, sk: string): Record<string, AttributeValue> {
  return { [ATTR.pk]: { S: ownerPk(owner) }, [ATTR.sk]: { S: sk } };
}

export function dayKey(owner: string, day: string): Record<string, AttributeValue> {
  return key(owner, `${USAGE_SK_PREFIX}D#${day}`);
}

export function monthKey(owner: string, month: string): Record<string, AttributeValue> {
  return key(owner, `${USAGE_SK_PREFIX}M#${month}`);
}

export function minuteKey(owner: string, minute: string): Record<string, AttributeValue> {
  return key(owner, `${USAGE_SK_PREFIX}R#${minute}`);
}

export function gateKey(owner: string): Record<string, AttributeValue> {
  return key(owner, GATE_SK);
}

/** Epoch seconds each item kind expires at (DynamoDB TTL), for periods ending at `periods`' ends. */
export function expiries(periods: Periods): { day: number; month: number; minute: number } {
  return {
    day: Math.floor(periods.dayEnds / 1000) + 40 * 86_400,
    month: Math.floor(periods.monthEnds / 1000) + 400 * 86_400,
    minute: Math.floor(periods.minuteEnds / 1000) + 3600,
  };
}

/** A dollar amount as a DynamoDB number: fixed-point, ten decimals (no exponent), which DynamoDB adds exactly. */
export function usdNumber(usd: number): AttributeValue {
  return { N: usd.toFixed(10) };
}

/** The overrides a gate item holds. */
export function decodeOverrides(item: Record<string, AttributeValue> | undefined): LimitOverrides {
  if (item === undefined) return NO_OVERRIDES;
  const version = item[LEDGER_ATTR.limitsVersion]?.N;
  const values: Partial<OwnerLimits> = {};
  for (const name of LIMIT_NAMES) {
    const value = item[LIMIT_ATTR[name]];
    if (value?.NULL === true) values[name] = null;
    else if (value?.N !== undefined) values[name] = Number(value.N);
  }
  return { version: version === undefined ? null : Number(version), values };
}

/** The limits that apply: each override, else the server's default. */
export function effectiveLimits(defaults: OwnerLimits, overrides: LimitOverrides): OwnerLimits {
  const limits = { ...defaults };
  for (const name of LIMIT_NAMES) {
    const value = overrides.values[name];
    if (value !== undefined) limits[name] = value;
  }
  return limits;
}

/** The in-flight slots a gate item holds, with their expiry. */
export function decodeSlots(item: Record<string, AttributeValue> | undefined): Array<{ slot: string; expiresAt: number }> {
  return (item?.[LEDGER_ATTR.slots]?.SS ?? []).map((slot) => ({ slot, expiresAt: Number(slot.split('#', 1)[0]) }));
}
