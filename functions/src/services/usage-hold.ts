/**
 * One holder's part in the usage ledger — a turn's or a compaction's: the hold it takes on
 * the owner's day and month before its first provider call (with the checks of every limit
 * that applies), the usage it adds, the top-ups before each further call, and the
 * settlement that gives the hold back. The writes ride on the holder's appends where it has
 * them (the store's append hook) and go alone where it has none (`sendExtras`).
 *
 * A hold is always taken, whether a budget applies or not — a budget set while turns run
 * then counts what they hold, and a settlement gives back exactly what was held, never
 * more. It lapses with the holder's deadline plus a lease term: a holder that crashed stops
 * counting then (the next turn the hold would refuse sweeps it), and a write that moves or
 * releases a hold is conditioned on it, so one swept is never subtracted twice.
 */
import {
  BudgetExceededError,
  decodeHolds,
  decodeOverrides,
  decodeSlots,
  type AppendExtras,
  type ExtraRefusal,
  type GateCheck,
  holdName,
  NO_USAGE,
  type OwnerLimits,
  type Periods,
  periodsOf,
  RateLimitedError,
  reservationWrites,
  sendExtras,
  slotRelease,
  sweepHolds,
  sweepSlots,
  totalsWrite,
  UnpricedModelError,
  type UsageDelta,
} from '@panto/aws/service';
import { saneUsage, type Usage } from '@panto/core/agent-kit';
import { OUTPUT_TOKEN_CAP } from '../agent/provider-resolver.js';
import type { UsageLedger } from './usage-ledger.js';
/** Tokens a reservation adds for what it cannot see (the system prompt's change, tool definitions). */
const SLACK_TOKENS = 1024;

export interface HoldOptions {
  owner: string;
  /** Names the hold (and a turn's concurrency slot): the lease the holder runs under. */
  id: string;
  /** How long the holder may run at most: its hold (and slot) lapse this long after it starts. */
  holdMs: number;
  /** The model its provider calls use. */
  provider: string;
  model: string;
  /** A turn counts against turns per minute and turns at once, and as a turn when it settles; a compaction does none of that. */
  turn: boolean;
  /** Where what the caller does not see is reported (a clamped usage, a settlement that failed). Must not throw. */
  report: (what: string, error: unknown) => void;
}

/** A provider call's model and usage, as an assistant message or a compaction record carries them. */
export interface CallUsage {
  provider: string;
  model: string;
  usage: Usage;
}

type Period = 'day' | 'month';
const PERIODS: readonly Period[] = ['day', 'month'];
const UNCONDITIONAL = async (): Promise<Error> => new Error('unconditional ledger writes were refused');

export class LedgerHold {
  readonly #ledger: UsageLedger;
  readonly #options: HoldOptions;
  /** `none` until the hold is taken; `held` while it is; `settled` once given back. */
  #state: 'none' | 'held' | 'settled' = 'none';
  /** The periods the holder counts in: those of its start. */
  #periods: Periods;
  #limits: OwnerLimits;
  /** The hold's attribute on the day and month items. */
  #name = '';
  #slot: string | null = null;
  /** Dollars held now (committed), and what the write in flight leaves held once it commits. */
  #held = 0;
  #pending = 0;
  /** Whether each period's item still has the hold (one swept as lapsed has not). */
  #on: Record<Period, boolean> = { day: true, month: true };
  /** Whether a call of the holder had no known price. */
  #unpriced = false;

  constructor(ledger: UsageLedger, options: HoldOptions) {
    this.#ledger = ledger;
    this.#options = options;
    this.#periods = periodsOf(ledger.now());
    this.#limits = ledger.limits(options.owner);
  }

  get state(): 'none' | 'held' | 'settled' {
    return this.#state;
  }

  /**
   * Before the holder's first write: when its model has no price and the limits this process
   * knows have a dollar budget, reads the owner's overrides now (one GetItem) — the refusal
   * {@link reserve} then answers must not rest on an override that changed since.
   */
  async ready(): Promise<void> {
    const { owner, provider, model } = this.#options;
    if (this.#budgeted(this.#ledger.limits(owner)) && this.#ledger.pricesOf(provider, model) === undefined) await this.#ledger.refresh(owner);
  }

  /**
   * The writes that take the hold — worth what a provider call with a context of `tokens`
   * can cost — and check every limit that applies; an `UnpricedModelError` instead when a
   * dollar budget applies and the model has no price. A refusal answers the limit's error,
   * or the writes again once what refused them is cleared (new overrides, lapsed holds or slots).
   */
  reserve(tokens: number): AppendExtras | Error {
    const { owner, id, holdMs, provider, model, turn } = this.#options;
    const known = this.#ledger.known(owner);
    this.#limits = this.#ledger.limits(owner);
    if (this.#budgeted(this.#limits) && this.#ledger.pricesOf(provider, model) === undefined) return new UnpricedModelError(owner, provider, model);
    const now = this.#ledger.now();
    this.#periods = periodsOf(now);
    this.#name = holdName(now + holdMs, id);
    this.#slot = turn && this.#limits.concurrentTurns !== null ? `${now + holdMs}#${id}` : null;
    const usd = this.callCost(tokens);
    const plan = { ...this.#target(), limits: this.#limits, limitsVersion: known.version, hold: { name: this.#name, usd }, turn, slot: this.#slot };
    const { writes, checks } = reservationWrites(plan);
    return {
      writes,
      refused: (refusals) => this.#reservationRefused(refusals, checks, known.version, tokens),
      committed: () => {
        this.#state = 'held';
        this.#held = usd;
      },
    };
  }

  /** {@link reserve}, sent as a transaction of its own (a compaction has no append before its call); rejects with the limit's error. */
  async reserveAlone(tokens: number): Promise<void> {
    await this.ready();
    const extras = this.reserve(tokens);
    if (extras instanceof Error) throw extras;
    await sendExtras(this.#ledger.dynamo, extras);
  }

  /**
   * Usage an append commits, and the hold moved to `next` dollars for the provider call that
   * follows — only while the budgets hold without the holder's own hold. Refused (the budget
   * is spent, or the hold lapsed), the usage is committed without the top-up and `onStop`
   * is called: the holder must not make that call.
   */
  topUp(used: UsageDelta, next: number, onStop: () => void): AppendExtras {
    // The check sees the totals before this write: with the holder's own hold, without what this append adds.
    const headroom = (limit: number | null): number | null => (limit === null ? null : limit + this.#held - used.usd);
    const limits: Record<Period, number | null> = { day: this.#limits.dailyUsd, month: this.#limits.monthlyUsd };
    const writes = PERIODS.map((period) =>
      this.#on[period]
        ? totalsWrite(this.#target(), {
            period,
            delta: { ...used, chargedUsd: used.usd + next - this.#held, reservedUsd: next - this.#held },
            hold: { type: 'move', name: this.#name, usd: next },
            limit: headroom(limits[period]),
          })
        : totalsWrite(this.#target(), { period, delta: used, hold: null, limit: null }),
    );
    this.#pending = next;
    return {
      writes,
      refused: async (refusals) => {
        this.#lapsed(refusals);
        this.#pending = this.#held;
        onStop();
        return { writes: PERIODS.map((period) => totalsWrite(this.#target(), { period, delta: used, hold: null, limit: null })), refused: UNCONDITIONAL };
      },
      committed: () => (this.#held = this.#pending),
    };
  }

  /** The settlement: `used` committed, the hold given back, a turn counted and its slot freed. */
  settle(used: UsageDelta): AppendExtras {
    const { turn } = this.#options;
    const counted = { turns: turn ? 1 : 0, usdUnknownTurns: turn && this.#unpriced ? 1 : 0 };
    const writes = PERIODS.map((period) =>
      this.#on[period]
        ? totalsWrite(this.#target(), {
            period,
            delta: { ...used, ...counted, chargedUsd: used.usd - this.#held, reservedUsd: -this.#held },
            hold: { type: 'release', name: this.#name },
            limit: null,
          })
        : totalsWrite(this.#target(), { period, delta: { ...used, ...counted }, hold: null, limit: null }),
    );
    if (this.#slot !== null) writes.push(slotRelease(this.#ledger.tableName, this.#options.owner, this.#slot));
    return {
      writes,
      // Only a hold that lapsed (swept, its dollars already given back) refuses a settlement: settle without it.
      refused: async (refusals) => (this.#lapsed(refusals) ? this.settle(used) : new Error('a settlement was refused with its hold in place')),
      committed: () => (this.#state = 'settled'),
    };
  }

  /** Settles a holder its appends did not (it failed, was stopped, or was refused its next call): one transaction, never rejects. */
  async finish(): Promise<void> {
    if (this.#state !== 'held') return;
    await sendExtras(this.#ledger.dynamo, this.settle(NO_USAGE)).catch((error: unknown) =>
      this.#options.report(`could not settle a hold of ${this.#options.owner} in the usage ledger (it is counted until it lapses)`, error),
    );
    this.#state = 'settled';
  }

  /** The tokens and dollars of `calls`, each usage made sane first (see usage-sanity.ts). */
  usageOf(calls: readonly CallUsage[]): UsageDelta {
    const delta = { ...NO_USAGE };
    for (const call of calls) {
      const { usage, clamped } = saneUsage(call.usage);
      if (clamped) {
        this.#options.report(
          `the usage ${JSON.stringify(call.usage)} of a ${call.provider}/${call.model} call of ${this.#options.owner} is not sane: counted as ${JSON.stringify(usage)}`,
          new RangeError('usage out of range'),
        );
      }
      const cost = this.#ledger.cost(call.provider, call.model, usage);
      if (cost === undefined) this.#unpriced = true;
      delta.usd += cost ?? 0;
      delta.inputTokens += usage.input_tokens;
      delta.outputTokens += usage.output_tokens;
      delta.cacheReadTokens += usage.cache_read_tokens;
      delta.cacheWriteTokens += usage.cache_write_tokens;
    }
    return { ...delta, chargedUsd: delta.usd };
  }

  /** What a provider call with a context of `tokens` can cost at most: the context at the highest input price, the output cap at the output price; 0 without a known price. */
  callCost(tokens: number): number {
    const prices = this.#ledger.pricesOf(this.#options.provider, this.#options.model);
    if (prices === undefined) return 0;
    const input = Math.max(prices.input, prices.cacheWrite, prices.cacheRead);
    return ((Math.max(0, tokens) + SLACK_TOKENS) * input + OUTPUT_TOKEN_CAP * prices.output) / 1_000_000;
  }

  /** Why the reservation was refused: the overrides changed (try again with them), holds or slots of crashed holders (swept), or a limit. */
  async #reservationRefused(
    refusals: readonly ExtraRefusal[],
    checks: readonly GateCheck[],
    version: number | null,
    tokens: number,
  ): Promise<Error | AppendExtras> {
    const { owner } = this.#options;
    const { dynamo, tableName } = this.#ledger;
    const now = this.#ledger.now();
    const seconds = (until: number): number => Math.max(1, Math.ceil((until - now) / 1000));
    const refused = new Map(refusals.map((refusal) => [checks[refusal.index], refusal.item]));
    if (refused.has('gate')) {
      const item = refused.get('gate');
      const overrides = decodeOverrides(item);
      // Changed since this attempt was built — judged against the version it named, not the one
      // this process knows now: a parallel turn may have learned the change already.
      if (overrides.version !== version) {
        this.#ledger.learn(owner, overrides);
        return this.reserve(tokens);
      }
      const limit = this.#limits.concurrentTurns ?? 0;
      const slots = decodeSlots(item);
      const expired = slots.filter((slot) => slot.expiresAt <= now).map((slot) => slot.slot);
      if (expired.length > 0 && slots.length - expired.length < limit) {
        await sweepSlots(dynamo, tableName, owner, expired);
        return this.reserve(tokens);
      }
      const soonest = Math.min(...slots.map((slot) => slot.expiresAt), now + 1000);
      return new RateLimitedError(owner, 'concurrent_turns', Math.min(seconds(soonest), 5));
    }
    // Holds of crashed holders (on the day's or the month's item: they are taken on both) are swept from both, then try again.
    const lapsed = new Map(
      PERIODS.flatMap((period) => decodeHolds(refused.get(period)).filter((hold) => hold.expiresAt <= now)).map((hold) => [hold.name, hold]),
    );
    if (lapsed.size > 0) {
      await sweepHolds(dynamo, tableName, owner, this.#periods, [...lapsed.values()]);
      return this.reserve(tokens);
    }
    if (refused.has('day')) return new BudgetExceededError(owner, 'daily', seconds(this.#periods.dayEnds));
    if (refused.has('month')) return new BudgetExceededError(owner, 'monthly', seconds(this.#periods.monthEnds));
    return new RateLimitedError(owner, 'turns_per_minute', seconds(this.#periods.minuteEnds));
  }

  /** Marks the periods whose refused write found the hold gone (swept as lapsed); whether any was. */
  #lapsed(refusals: readonly ExtraRefusal[]): boolean {
    let any = false;
    for (const refusal of refusals) {
      const period = PERIODS[refusal.index];
      if (period === undefined || refusal.item?.[this.#name] !== undefined) continue;
      this.#on[period] = false;
      any = true;
    }
    return any;
  }

  #budgeted(limits: OwnerLimits): boolean {
    return limits.dailyUsd !== null || limits.monthlyUsd !== null;
  }

  #target(): { tableName: string; owner: string; periods: Periods } {
    return { tableName: this.#ledger.tableName, owner: this.#options.owner, periods: this.#periods };
  }
}
