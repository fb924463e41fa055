/**
 * The usage ledger as the service keeps it: the server's default limits (`PANTO_BUDGET_*`,
 * `PANTO_TURNS_PER_MINUTE`, `PANTO_CONCURRENT_TURNS`), the owners' overrides as this
 * process last saw them (every turn's gate check names their version, so a change is seen
 * on the next turn: the gate refuses a stale version and hands back the new overrides), and
 * an owner's totals as `GET /usage` answers them.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { effectiveLimits, NO_OVERRIDES, readOwnerOverrides, readOwnerUsage, type LimitOverrides, type OwnerLimits, type UsageTotals } from '@panto/aws/service';
import type { ModelPrices, Usage } from '@panto/core/agent-kit';
import { type ModelPriceTable, pricesOf, priceUsage } from '../model-prices.js';

export const NO_LIMITS: OwnerLimits = { dailyUsd: null, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null };

export interface UsageLedgerDeps {
  dynamo: DynamoDBClient;
  tableName: string;
  /** The limits of an owner without overrides. */
  defaults: OwnerLimits;
  /** The operator's prices (`PANTO_MODEL_PRICES`), counted before the catalog's. */
  prices: ModelPriceTable;
  /** Epoch ms now: the UTC day, month and minute a turn counts in. */
  now: () => number;
}

/** Totals as `GET /usage` answers them. */
export interface UsageTotalsJson {
  usd: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  turns: number;
  /** Turns whose model has no known price: their tokens are counted above, their dollars are not in `usd`. */
  usd_unknown_turns: number;
  /** Dollars held by turns in flight (what their next provider call can cost), not in `usd`. */
  reserved_usd: number;
}

export interface UsageJson {
  today: UsageTotalsJson;
  month: UsageTotalsJson;
  limits: { daily_usd: number | null; monthly_usd: number | null; turns_per_minute: number | null; concurrent_turns: number | null };
  resets: { day: string; month: string };
}

export class UsageLedger {
  readonly dynamo: DynamoDBClient;
  readonly tableName: string;
  readonly now: () => number;
  readonly #defaults: OwnerLimits;
  readonly #prices: ModelPriceTable;
  /** Owners' overrides as this process last saw them (a gate refusal or a read brings them up to date). */
  readonly #overrides = new Map<string, LimitOverrides>();

  constructor(deps: UsageLedgerDeps) {
    this.dynamo = deps.dynamo;
    this.tableName = deps.tableName;
    this.now = deps.now;
    this.#defaults = deps.defaults;
    this.#prices = deps.prices;
  }

  /** The prices a call of `provider/model` is counted at: the operator's, else the catalog's; undefined when unknown. */
  pricesOf(provider: string, model: string): ModelPrices | undefined {
    return pricesOf(this.#prices, provider, model);
  }

  /** What `usage` cost on `provider/model` (at {@link pricesOf}); undefined when its price is unknown. */
  cost(provider: string, model: string, usage: Usage): number | undefined {
    return priceUsage(this.#prices, provider, model, usage);
  }

  /** The overrides of `owner` as this process knows them (none until it learns otherwise). */
  known(owner: string): LimitOverrides {
    return this.#overrides.get(owner) ?? NO_OVERRIDES;
  }

  /** What a gate item (or a read) says the owner's overrides now are. */
  learn(owner: string, overrides: LimitOverrides): void {
    this.#overrides.set(owner, overrides);
  }

  /** Reads the owner's overrides as the gate now holds them (one GetItem), for a refusal that must not rest on what this process last saw. */
  async refresh(owner: string): Promise<void> {
    this.learn(owner, await readOwnerOverrides(this.dynamo, this.tableName, owner));
  }

  /** The limits that apply to `owner`, as far as this process knows. */
  limits(owner: string): OwnerLimits {
    return effectiveLimits(this.#defaults, this.known(owner));
  }

  /** `GET /usage`: the owner's totals for today and this month (UTC), the limits that apply, and when the totals reset. */
  async read(owner: string): Promise<UsageJson> {
    const usage = await readOwnerUsage(this.dynamo, this.tableName, owner, this.now());
    this.learn(owner, usage.overrides);
    const limits = this.limits(owner);
    return {
      today: totalsJson(usage.today),
      month: totalsJson(usage.month),
      limits: {
        daily_usd: limits.dailyUsd,
        monthly_usd: limits.monthlyUsd,
        turns_per_minute: limits.turnsPerMinute,
        concurrent_turns: limits.concurrentTurns,
      },
      resets: { day: new Date(usage.resets.day).toISOString(), month: new Date(usage.resets.month).toISOString() },
    };
  }
}

export function totalsJson(totals: UsageTotals): UsageTotalsJson {
  return {
    // Sums of ten-decimal amounts: rounded back to what was stored.
    usd: Number(totals.usd.toFixed(10)),
    input_tokens: totals.inputTokens,
    output_tokens: totals.outputTokens,
    cache_read_tokens: totals.cacheReadTokens,
    cache_write_tokens: totals.cacheWriteTokens,
    turns: totals.turns,
    usd_unknown_turns: totals.usdUnknownTurns,
    reserved_usd: Number(totals.reservedUsd.toFixed(10)),
  };
}
