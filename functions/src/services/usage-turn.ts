/**
 * A turn's and a compaction's part in the usage ledger (their hold: usage-hold.ts).
 *
 * A turn's writes ride on its own appends (the store's append hook) — no request of its own
 * in the common case:
 *
 * - the prompt's append takes the hold — what the turn's first provider call can cost — and
 *   checks the owner's limits (the gate: overrides unchanged and a concurrency slot free;
 *   the minute's turns; the day's and month's budgets) — a refusal stores nothing;
 * - each later append adds the usage of the calls it commits; one that ends in tool calls
 *   (another provider call follows) moves the hold to that call's cost and checks the
 *   budgets again — refused, it commits without the top-up and the turn stops before the
 *   call (`signal`: `incomplete_reason: "budget"`);
 * - the final answer's append settles: the hold given back, the turn counted, its slot
 *   freed — as does the append of a message the turn pauses on (tool calls that wait for a
 *   person's decision: no provider call follows, nothing is held while the person thinks);
 *   the decisions' append (an approval entry) opens the resumed turn as a prompt would. A turn that ends with nothing more to commit (a failure, a stop) settles in
 *   {@link TurnLedger.finish}: one TransactWriteItems of the ledger items alone.
 *
 * A compaction has no append before its provider call: it takes its hold in a transaction
 * of its own (refused like a turn's prompt when a budget is spent), and its append settles.
 *
 * The hold is an upper bound of one call: the context as the last call reported it plus
 * the new text (4 characters a token) and 1,024 tokens of slack, at the highest input
 * price, plus the output cap every call is sent (`OUTPUT_TOKEN_CAP`, 8,192) at the output price.
 * See docs/aws.md for why the day's spend ends at most one call's hold over a budget.
 */
import type { AppendHook } from '@panto/aws/service';
import { type Message, saneUsage, toolCalls, type Usage } from '@panto/core/agent-kit';
import { type CallUsage, LedgerHold } from './usage-hold.js';
import type { UsageLedger } from './usage-ledger.js';

export interface TurnLedgerOptions {
  owner: string;
  /** The turn's lease: its hold and concurrency slot are named by it. */
  leaseId: string;
  /** How long the turn may run at most: its hold and slot lapse this long after the start (a turn that crashed frees them then). */
  slotMs: number;
  /** The session's provider and model, and the size of its context as its last call reported it (tokens). */
  provider: string;
  model: string;
  contextTokens: number;
  /** Called once if the owner's budget stops the turn before its next provider call. Must not throw. */
  onBudgetStop: () => void;
  /** Where what the caller does not see is reported (a settlement that failed, a clamped usage). Must not throw. */
  report: (what: string, error: unknown) => void;
}

export class TurnLedger {
  readonly #hold: LedgerHold;
  readonly #options: TurnLedgerOptions;

  constructor(ledger: UsageLedger, options: TurnLedgerOptions) {
    this.#options = options;
    const { owner, leaseId, slotMs, provider, model, report } = options;
    this.#hold = new LedgerHold(ledger, { owner, id: leaseId, holdMs: slotMs, provider, model, turn: true, report });
  }

  /** The hook to set on the turn's store (`setAppendHook`). */
  readonly hook: AppendHook = (entries) => {
    const messages = entries.flatMap((entry) => (entry.type === 'message' ? [entry.message] : []));
    if (this.#hold.state === 'none') {
      // A turn opens with its prompt, or with the decisions that resume it (an approval entry).
      const opens = messages.some((message) => message.role === 'user') || entries.some((entry) => entry.type === 'approval');
      return opens ? this.#hold.reserve(this.#options.contextTokens + textTokens(messages)) : null;
    }
    const calls = messages.filter((message) => message.role === 'assistant');
    if (this.#hold.state !== 'held' || calls.length === 0) return null;
    const used = this.#hold.usageOf(calls);
    const last = messages.at(-1);
    // The final answer ends the turn; so does a message it pauses on (its calls wait for a person: no provider call follows).
    const paused = messages.some((message) => message.role === 'assistant' && message.stop_reason === 'awaiting_approval');
    if (paused || (last?.role === 'assistant' && toolCalls(last).length === 0)) return this.#hold.settle(used);
    // Another provider call follows: hold what it can cost, and let it be made only while the budgets hold.
    return this.#hold.topUp(used, this.#hold.callCost(contextTokens(messages)), this.#options.onBudgetStop);
  };

  /** Call before the prompt's append: see `LedgerHold.ready` (a request only for an unpriced model under a budget). */
  async ready(): Promise<void> {
    await this.#hold.ready();
  }

  /** Settles a turn whose last append did not (it failed, was stopped, or was refused its next call): one transaction, never rejects. */
  async finish(): Promise<void> {
    await this.#hold.finish();
  }
}

/**
 * A compaction's part in the ledger: {@link reserve} before its provider call (rejects with
 * `BudgetExceededError` / `UnpricedModelError`, nothing written), {@link hook} on its store to
 * settle with its append, {@link finish} for one that ended without it.
 */
export class CompactionLedger {
  readonly #hold: LedgerHold;

  constructor(
    ledger: UsageLedger,
    options: { owner: string; leaseId: string; holdMs: number; provider: string; model: string; report: TurnLedgerOptions['report'] },
  ) {
    const { leaseId, holdMs, ...rest } = options;
    this.#hold = new LedgerHold(ledger, { ...rest, id: leaseId, holdMs, turn: false });
  }

  /** Takes the hold for a summary of `messages` (the conversation the compaction sends), checking the budgets. */
  async reserve(messages: readonly Message[]): Promise<void> {
    await this.#hold.reserveAlone(contextTokens(messages));
  }

  readonly hook: AppendHook = (entries) => {
    const record = entries.find((entry) => entry.type === 'compaction');
    if (record === undefined || this.#hold.state !== 'held') return null;
    const call: CallUsage = { provider: record.provider, model: record.model, usage: record.usage };
    return this.#hold.settle(this.#hold.usageOf([call]));
  };

  async finish(): Promise<void> {
    await this.#hold.finish();
  }
}

/** The tokens a call's context has after `messages`: the last call's whole usage, plus the text of what followed it. */
export function contextTokens(messages: readonly Message[]): number {
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

/** Every token a call's usage counts (made sane first): its whole context, and its output (which the next call reads). */
export function usageTokens(usage: Usage): number {
  const sane = saneUsage(usage).usage;
  return sane.input_tokens + sane.cache_read_tokens + sane.cache_write_tokens + sane.output_tokens;
}
