/**
 * One turn's part in the usage ledger, riding on the turn's own appends (the store's append
 * hook) — no request of its own in the common case:
 *
 * - the prompt's append reserves what the turn's first provider call can cost and checks
 *   the owner's limits (the gate: overrides unchanged and a concurrency slot free; the
 *   minute's turns; the day's and month's budgets) — a refusal stores nothing;
 * - each later append adds the usage of the calls it commits; one that ends in tool calls
 *   (another provider call follows) tops the reservation up for that call and checks the
 *   budgets again — refused, it commits without the top-up and the turn stops before the
 *   call (`signal`: `incomplete_reason: "budget"`);
 * - the final answer's append settles: the reservation is released, the turn counted, its
 *   slot freed. A turn that ends with nothing more to commit (a failure, a stop) settles in
 *   {@link TurnLedger.finish}: one TransactWriteItems of the ledger items alone.
 *
 * The reservation is an upper bound of one call: the context as the last call reported it
 * plus the new text (4 characters a token) and 1,024 tokens of slack, at the highest input
 * price (a cache write), plus {@link RESERVED_OUTPUT_TOKENS} at the output price. See
 * docs/aws.md for why the day's spend ends at most one call's cost over a budget.
 */
import {
  BudgetExceededError,
  decodeOverrides,
  decodeSlots,
  type ExtraRefusal,
  type AppendExtras,
  type AppendHook,
  type GateCheck,
  NO_USAGE,
  type OwnerLimits,
  type Periods,
  periodsOf,
  RateLimitedError,
  reservationWrites,
  sendLedgerWrites,
  slotRelease,
  sweepSlots,
  type UsageDelta,
  usageWrites,
} from '@panto/aws/service';
import { findModel, type Message, toolCalls, type Usage, usageCost } from '@panto/core/agent-kit';
import type { UsageLedger } from './usage-ledger.js';

/** Output tokens a reservation counts per provider call: panto's default `max_tokens` (Anthropic's). */
export const RESERVED_OUTPUT_TOKENS = 8192;
/** Tokens a reservation adds for what it cannot see (the system prompt's change, tool definitions). */
const SLACK_TOKENS = 1024;

export interface TurnLedgerOptions {
  owner: string;
  /** The turn's lease: its concurrency slot is named by it. */
  leaseId: string;
  /** How long the turn may run at most: its slot lapses this long after the start (a turn that crashed frees it then). */
  slotMs: number;
  /** The session's provider and model, and the size of its context as its last call reported it (tokens). */
  provider: string;
  model: string;
  contextTokens: number;
  /** Called once if the owner's budget stops the turn before its next provider call. Must not throw. */
  onBudgetStop: () => void;
  /** Where a settlement that failed is reported. Must not throw. */
  report: (what: string, error: unknown) => void;
}

type Phase = 'before-prompt' | 'running' | 'settled';

export class TurnLedger {
  readonly #ledger: UsageLedger;
  readonly #options: TurnLedgerOptions;
  #phase: Phase = 'before-prompt';
  /** The periods the turn counts in: those of its start. */
  #periods: Periods;
  #limits: OwnerLimits;
  /** Dollars reserved now (committed), and what the append in flight leaves reserved once it commits. */
  #reserved = 0;
  #pending = 0;
  #slot: string | null = null;
  /** Whether a call of the turn had no known price. */
  #unpriced = false;

  constructor(ledger: UsageLedger, options: TurnLedgerOptions) {
    this.#ledger = ledger;
    this.#options = options;
    this.#periods = periodsOf(ledger.now());
    this.#limits = ledger.limits(options.owner);
  }

  /** The hook to set on the turn's store (`setAppendHook`). */
  readonly hook: AppendHook = (entries) => {
    const messages = entries.flatMap((entry) => (entry.type === 'message' ? [entry.message] : []));
    // A turn opens with its prompt, or with the decisions that resume it (an approval entry).
    const opens = messages.some((message) => message.role === 'user') || entries.some((entry) => entry.type === 'approval');
    if (this.#phase === 'before-prompt') return opens ? this.#reservation(messages) : null;
    if (this.#phase !== 'running' || !messages.some((message) => message.role === 'assistant')) return null;
    return this.#usage(messages);
  };

  /** Settles a turn whose last append did not (it failed, was stopped, or was refused its next call): one transaction, never rejects. */
  async finish(): Promise<void> {
    if (this.#phase !== 'running') return;
    this.#phase = 'settled';
    const writes = usageWrites(this.#target(), this.#settlement(NO_USAGE), null).writes;
    if (this.#slot !== null) writes.push(slotRelease(this.#ledger.tableName, this.#options.owner, this.#slot));
    await sendLedgerWrites(this.#ledger.dynamo, writes).catch((error: unknown) =>
      this.#options.report(`could not settle a turn of ${this.#options.owner} in the usage ledger (its reservation stays counted today)`, error),
    );
  }

  /** The prompt's writes: the reservation, and the checks of every limit that applies. */
  #reservation(messages: readonly Message[]): AppendExtras {
    const { owner, leaseId, slotMs } = this.#options;
    const known = this.#ledger.known(owner);
    this.#limits = this.#ledger.limits(owner);
    const now = this.#ledger.now();
    this.#periods = periodsOf(now);
    const reserve = this.#reserveFor(this.#options.contextTokens + textTokens(messages));
    this.#slot = this.#limits.concurrentTurns === null ? null : `${now + slotMs}#${leaseId}`;
    const { writes, checks } = reservationWrites({
      tableName: this.#ledger.tableName,
      owner,
      periods: this.#periods,
      limits: this.#limits,
      limitsVersion: known.version,
      reserveUsd: reserve,
      slot: this.#slot,
    });
    // Whichever attempt commits (a refusal may rebuild these writes), it leaves this reserved.
    this.#pending = reserve;
    return {
      writes,
      refused: (refusals) => this.#reservationRefused(refusals, checks, messages),
      committed: () => {
        this.#phase = 'running';
        this.#reserved = this.#pending;
      },
    };
  }

  /** Why the prompt's writes were refused: the overrides changed (try again with them), a slot held by a crashed turn (swept), or a limit. */
  async #reservationRefused(refusals: readonly ExtraRefusal[], checks: readonly GateCheck[], messages: readonly Message[]): Promise<Error | AppendExtras> {
    const { owner } = this.#options;
    const now = this.#ledger.now();
    const seconds = (until: number): number => Math.max(1, Math.ceil((until - now) / 1000));
    const refused = new Map(refusals.map((refusal) => [checks[refusal.index], refusal.item]));
    if (refused.has('gate')) {
      const item = refused.get('gate');
      const overrides = decodeOverrides(item);
      if (overrides.version !== this.#ledger.known(owner).version) {
        this.#ledger.learn(owner, overrides);
        return this.#reservation(messages);
      }
      const limit = this.#limits.concurrentTurns ?? 0;
      const slots = decodeSlots(item);
      const expired = slots.filter((slot) => slot.expiresAt <= now).map((slot) => slot.slot);
      if (expired.length > 0 && slots.length - expired.length < limit) {
        await sweepSlots(this.#ledger.dynamo, this.#ledger.tableName, owner, expired);
        return this.#reservation(messages);
      }
      const soonest = Math.min(...slots.map((slot) => slot.expiresAt), now + 1000);
      return new RateLimitedError(owner, 'concurrent_turns', Math.min(seconds(soonest), 5));
    }
    if (refused.has('day')) return new BudgetExceededError(owner, 'daily', seconds(this.#periods.dayEnds));
    if (refused.has('month')) return new BudgetExceededError(owner, 'monthly', seconds(this.#periods.monthEnds));
    return new RateLimitedError(owner, 'turns_per_minute', seconds(this.#periods.minuteEnds));
  }

  /** A later append: the usage of the calls it commits; the settlement when it is the final answer, else the next call's check. */
  #usage(messages: readonly Message[]): AppendExtras {
    const used = this.#used(messages);
    const last = messages.at(-1);
    // The final answer ends the turn; so does a message it pauses on (its calls wait for a person: no provider call follows).
    const paused = messages.some((message) => message.role === 'assistant' && message.stop_reason === 'awaiting_approval');
    const final = paused || (last?.role === 'assistant' && toolCalls(last).length === 0);
    const target = this.#target();
    if (final) {
      const writes = usageWrites(target, this.#settlement(used), null).writes;
      if (this.#slot !== null) writes.push(slotRelease(this.#ledger.tableName, this.#options.owner, this.#slot));
      return { writes, refused: async () => new Error('unconditional ledger writes were refused'), committed: () => (this.#phase = 'settled') };
    }
    // Another provider call follows: reserve for it, and let it be made only while the budgets hold.
    const next = this.#reserveFor(contextTokens(messages));
    const topUp = { ...used, chargedUsd: used.usd + next - this.#reserved, reservedUsd: next - this.#reserved };
    // The check sees the totals before this write: without the turn's own reservation, with what this append adds.
    const headroom = (limit: number | null): number | null => (limit === null ? null : limit + this.#reserved - used.usd);
    const budgets = { dailyUsd: headroom(this.#limits.dailyUsd), monthlyUsd: headroom(this.#limits.monthlyUsd) };
    this.#pending = next;
    return {
      writes: usageWrites(target, topUp, budgets).writes,
      refused: async () => {
        // The budget is spent: commit what the step did, without the top-up, and stop before the next call.
        this.#pending = this.#reserved;
        this.#options.onBudgetStop();
        return { writes: usageWrites(target, used, null).writes, refused: async () => new Error('unconditional ledger writes were refused') };
      },
      committed: () => (this.#reserved = this.#pending),
    };
  }

  /** The tokens and dollars of the assistant messages among `messages`. */
  #used(messages: readonly Message[]): UsageDelta {
    const delta = { ...NO_USAGE };
    for (const message of messages) {
      if (message.role !== 'assistant') continue;
      const cost = usageCost(message.provider, message.model, message.usage);
      if (cost === undefined) this.#unpriced = true;
      delta.usd += cost ?? 0;
      delta.inputTokens += message.usage.input_tokens;
      delta.outputTokens += message.usage.output_tokens;
      delta.cacheReadTokens += message.usage.cache_read_tokens;
      delta.cacheWriteTokens += message.usage.cache_write_tokens;
    }
    return { ...delta, chargedUsd: delta.usd };
  }

  /** `used`, plus the end of the turn: its reservation released, the turn counted. */
  #settlement(used: UsageDelta): UsageDelta {
    return {
      ...used,
      chargedUsd: used.usd - this.#reserved,
      reservedUsd: -this.#reserved,
      turns: 1,
      usdUnknownTurns: this.#unpriced ? 1 : 0,
    };
  }

  /** What a provider call with a context of `tokens` can cost at most; 0 for a model without a known price. */
  #reserveFor(tokens: number): number {
    const prices = findModel(this.#options.provider, this.#options.model)?.prices;
    if (prices === undefined) return 0;
    return ((tokens + SLACK_TOKENS) * Math.max(prices.input, prices.cacheWrite) + RESERVED_OUTPUT_TOKENS * prices.output) / 1_000_000;
  }

  #target(): { tableName: string; owner: string; periods: Periods } {
    return { tableName: this.#ledger.tableName, owner: this.#options.owner, periods: this.#periods };
  }
}

/**
 * A compaction's part in the ledger: its usage added to the owner's totals by its own
 * append (no reservation, no check, no turn counted — it is not a turn; its model call is
 * spend all the same, and the session's usage counts it too).
 */
export function compactionHook(ledger: UsageLedger, owner: string): AppendHook {
  return (entries) => {
    const record = entries.find((entry) => entry.type === 'compaction');
    if (record === undefined) return null;
    const cost = usageCost(record.provider, record.model, record.usage);
    const delta: UsageDelta = {
      ...NO_USAGE,
      usd: cost ?? 0,
      chargedUsd: cost ?? 0,
      inputTokens: record.usage.input_tokens,
      outputTokens: record.usage.output_tokens,
      cacheReadTokens: record.usage.cache_read_tokens,
      cacheWriteTokens: record.usage.cache_write_tokens,
    };
    const writes = usageWrites({ tableName: ledger.tableName, owner, periods: periodsOf(ledger.now()) }, delta, null).writes;
    return { writes, refused: async () => new Error('unconditional ledger writes were refused') };
  };
}

/** The tokens a call's context has after `messages`: the last call's whole usage, plus the text of what followed it. */
function contextTokens(messages: readonly Message[]): number {
  let tokens = 0;
  for (const message of messages) {
    if (message.role === 'assistant') tokens = usageTokens(message.usage);
    else tokens += Math.ceil(JSON.stringify(message).length / 4);
  }
  return tokens;
}

function textTokens(messages: readonly Message[]): number {
  return messages.reduce((sum, message) => sum + Math.ceil(JSON.stringify(message).length / 4), 0);
}

/** Every token a call's usage counts: its whole context, and its output (which the next call reads). */
export function usageTokens(usage: Usage): number {
  return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens + usage.output_tokens;
}
