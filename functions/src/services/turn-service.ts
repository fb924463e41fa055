/**
 * A session's turns: running one (now, or on a lock taken before a stream starts), a
 * compaction, asking the running one to stop, and following it from any process.
 *
 * A plain turn costs two requests in a warm process: the prompt's append, which also takes
 * the session's lease (conditioned on no other lease and on the head this process last saw),
 * and the answer's append, which also gives it up. Each tool round adds its own append. A
 * cold process adds one Query (META and the log). A turn that outlives the lease's renewal
 * period adds one UpdateItem per period: the renewal, which also reads back whether a stop
 * was requested. A turn that ends with nothing to commit (an error before any answer, a stop
 * between tool rounds) releases the lease with one UpdateItem. The usage ledger adds no request: its checks and
 * totals ride on the prompt's and the answer's appends (usage-turn.ts).
 */
import { type DynamoStore, type PartialAnswer, requestTurnStop } from '@panto/aws/service';
import {
  AbortedError,
  acceptsPrompt,
  Agent,
  type ApprovalDecision,
  type CompactionResult,
  type DiskApprovalRecord,
  type DiskMessageRecord,
  type Message,
  type PendingApproval,
  pendingApprovals,
  SessionTree,
  type Provider,
  ProviderNotConfiguredError,
  type Receiver,
  type StepResult,
  type ToolRegistry,
  UnknownProviderError,
  anySignal,
} from '@panto/core/agent-kit';
import { invalidField, unknownEntry } from '../errors.js';
import { leaseClock, openStore, reportUnseen, type RunningTurn, runningTurn, type SessionContext } from './session-context.js';
import { type SessionLock, withSessionLock } from './session-lock.js';
import { type LedgerTurn, type StartDeps, type StartedTurn, type StartOptions, startTurn, type TurnOpening } from './turn-start.js';
import { CompactionLedger, TurnLedger, usageTokens } from './usage-turn.js';

/** A turn's deadline when its route gives none: the streaming function's 15 minutes. */
const DEFAULT_SLOT_DEADLINE_MS = 900_000;

export interface TurnOptions {
  /** Ends the step early; everything committed so far stays persisted. */
  signal: AbortSignal;
  /** Sees every event of the turn, the prompt's `entries-persisted` first. Must not throw. */
  receiver?: Receiver;
  /**
   * Continue from this entry instead of the active leaf (`null`: the root): it must be a
   * point a prompt can follow (`acceptsPrompt`), else a 400 naming `parent_id`.
   */
  parentId?: string | null;
  /** The longest the turn may run (its deadline): a concurrency slot it holds lapses after this and a lease term. */
  deadlineMs?: number;
}

export interface TurnOutcome {
  /** What opened the turn, as stored: the user's prompt, or the approval entry that resumed it. */
  opened: DiskMessageRecord | DiskApprovalRecord;
  /** Every message the turn persisted: the prompt (or a decision's denials) first, then what the step added. */
  messages: Message[];
  /** The same messages as stored records (entry id, timestamp). */
  records: DiskMessageRecord[];
  step: StepResult;
  /** True when a stop request (`stop`) ended the turn. */
  stopRequested: boolean;
  /** True when the owner's budget stopped the turn before a provider call (`incomplete_reason: "budget"`). */
  budgetStopped: boolean;
}

/** What following a session (`TurnService.follow`) sees, in order: `turn` first, `end` last. */
export type FollowEvent =
  | { type: 'turn'; turn: RunningTurn | null }
  /** The answer of the running turn so far (before its message is stored), each time a read finds a newer one. */
  | { type: 'partial'; partial: PartialAnswer }
  /** A message persisted at entry `index` (0-based) of the log, as its entry holds it. */
  | { type: 'message'; index: number; record: DiskMessageRecord }
  /** Decisions on waiting tool calls persisted at entry `index`: a paused turn resumed. */
  | { type: 'approval'; index: number; record: DiskApprovalRecord }
  /**
   * `entryCount`: entries seen, where to follow on from; `turn`: the turn still running when
   * following stopped (a deadline), else null; `pendingApprovals`: the tool calls the session
   * waits on once the turn has ended (it paused on them), in the model's order.
   */
  | { type: 'end'; entryCount: number; turn: RunningTurn | null; pendingApprovals: readonly PendingApproval[] };

export type TurnService = ReturnType<typeof turnService>;

/** `TurnService.compact`'s: `deadlineMs` bounds how long the summary's hold is kept (the route's deadline). */
export interface CompactOptions {
  signal: AbortSignal;
  deadlineMs?: number;
}

export function turnService(context: SessionContext) {
  return {
    /**
     * Runs one turn: takes the session's lease (a `SessionBusyError` when another turn holds
     * it, before anything is written), persists the prompt, runs the step until the model
     * stops, `signal` aborts or a stop is requested, and releases the lease. A turn that lost
     * its lease stops and rejects with `SessionLeaseLostError`, what it committed kept.
     */
    async turn(owner: string, sessionId: string, text: string, options: TurnOptions): Promise<TurnOutcome> {
      return openAndRun(context, owner, sessionId, { type: 'prompt', text }, options);
    },

    /**
     * Resumes a turn paused on tool calls, as `turn` runs one: stores `decisions` (one per
     * waiting call, the denials' results with them; `ApprovalDecisionError` otherwise, nothing
     * written) taking the lease in that write, runs the approved calls, then the step.
     */
    async decide(owner: string, sessionId: string, decisions: readonly ApprovalDecision[], options: Omit<TurnOptions, 'parentId'>): Promise<TurnOutcome> {
      return openAndRun(context, owner, sessionId, { type: 'decisions', decisions }, options);
    },

    /**
     * Stores the prompt (or the `decisions` that resume a paused turn), taking the lease in the
     * same write, for a turn that runs later (a streamed turn answers 404, 409 or a 400 before
     * its stream starts); the caller must release `started.lock`.
     */
    async start(
      owner: string,
      sessionId: string,
      opening: string | { decisions: readonly ApprovalDecision[] },
      options: StartOptions = {},
    ): Promise<StartedTurn> {
      const turnOpening: TurnOpening = typeof opening === 'string' ? { type: 'prompt', text: opening } : { type: 'decisions', ...opening };
      return startTurn(context, startDeps(context), owner, sessionId, turnOpening, options);
    },

    /** Runs the step of a started turn (see `start`); does not release its lock. */
    async run(started: StartedTurn, options: { signal: AbortSignal; receiver?: Receiver }): Promise<TurnOutcome> {
      const unreceive = options.receiver === undefined ? undefined : started.agent.subscribe(options.receiver);
      try {
        return await runTurn(started, options);
      } finally {
        unreceive?.();
      }
    },

    /**
     * Summarises the session through its model, holding the lease like a turn. A stop request
     * ends it with `StopRequestedError`, a lost lease with `SessionLeaseLostError`; either
     * way nothing is written. The summary's model call is spend: it is held for and checked
     * against the owner's budgets before the call (`BudgetExceededError`, nothing written).
     */
    async compact(owner: string, sessionId: string, instructions: string | undefined, options: CompactOptions): Promise<CompactionResult> {
      return withSessionLock(context, owner, sessionId, (lock) => compactLocked(context, lock, instructions, options));
    },

    /**
     * Asks the turn (or compaction) running on the session to stop. It notices at its next
     * renewal and stops at its next chunk or tool boundary, keeping what it committed.
     * `TurnNotRunningError` when none runs; `SessionNotFoundError` as for `read`.
     */
    async stop(owner: string, sessionId: string): Promise<RunningTurn> {
      const clock = leaseClock(context);
      return runningTurn(await requestTurnStop({ client: context.dynamo, tableName: context.tableName, owner, sessionId, now: () => clock.now() }));
    },

    /**
     * Follows the session as it is written, by whichever process: opens it (a
     * `SessionNotFoundError` here, before anything is sent), then yields the running turn,
     * every message persisted from entry `from` on (default: the running turn's first entry,
     * or — when none runs — the end of the log), polling every `pollMs`, and `end` once the
     * turn has ended (its lease released or lapsed) or `signal` aborts.
     */
    async follow(owner: string, sessionId: string, options: { from?: number; signal: AbortSignal; pollMs: number }): Promise<AsyncIterable<FollowEvent>> {
      return follow(await openStore(context, owner, sessionId), options);
    },
  };
}

/** A compaction on a session its lock holds: the hold for the summary's call first (refused when a budget is spent), then the call; its append settles. */
async function compactLocked(context: SessionContext, lock: SessionLock, instructions: string | undefined, options: CompactOptions): Promise<CompactionResult> {
  const agent = await sessionAgent(context, lock.store);
  const ledger = new CompactionLedger(context.usage, {
    owner: lock.owner,
    leaseId: lock.leaseId,
    holdMs: (options.deadlineMs ?? DEFAULT_SLOT_DEADLINE_MS) + context.lease.leaseMs,
    provider: agent.provider.name,
    model: agent.provider.model,
    report: (what, error) => reportUnseen(context, what, error),
  });
  await ledger.reserve(agent.conversation.messages);
  // The compaction's append settles the hold; one that never comes (a failure, a stop), `finish`.
  lock.store.setAppendHook(ledger.hook);
  try {
    return await agent.compact(instructions, { signal: AbortSignal.any([options.signal, lock.signal]) });
  } catch (error) {
    if (error instanceof AbortedError) throw lock.ended?.error ?? error;
    throw error;
  } finally {
    lock.store.setAppendHook(null);
    await ledger.finish();
  }
}

async function checkParent(store: DynamoStore, parentId: string | null): Promise<void> {
  if (parentId === null) return;
  const tree = await store.loadTree();
  const entry = tree.get(parentId);
  if (entry === undefined) throw unknownEntry('parent_id');
  if (!acceptsPrompt(tree.resolve(parentId))) {
    throw invalidField(
      'body',
      'parent_id',
      'a prompt cannot follow this entry: use an assistant message that calls no tools, a system message, a compaction, or null',
    );
  }
}

/** Opens a turn (its prompt or decisions stored, the lease taken), runs it, and releases the lease. */
async function openAndRun(context: SessionContext, owner: string, sessionId: string, opening: TurnOpening, options: TurnOptions): Promise<TurnOutcome> {
  const started = await startTurn(context, startDeps(context), owner, sessionId, opening, options);
  try {
    return await runTurn(started, options);
  } finally {
    await started.lock.release();
  }
}

function startDeps(context: SessionContext): StartDeps {
  return {
    checkParent,
    agentOn: (store, tools, at) => resumedAgent(context, store, at, tools),
    ledgerOn: (turn) => turnLedger(context, turn),
  };
}

/** The step of a started turn; its records and receiver are unsubscribed at the end. */
async function runTurn(started: StartedTurn, options: { signal: AbortSignal }): Promise<TurnOutcome> {
  const { agent, lock, opened, records, budget } = started;
  const stopped = anySignal([options.signal, lock.signal, budget.signal]);
  try {
    const step = await agent.runStep(undefined, { signal: stopped.signal });
    const cut = step.stopReason === 'aborted' ? lock.ended : null;
    // A turn that lost its lease answers as such, whether or not its last write was refused.
    if (cut?.type === 'lease-lost') throw cut.error;
    const budgetStopped = step.stopReason === 'aborted' && budget.signal.aborted && cut === null;
    return { opened, messages: records.map((record) => record.message), records, step, stopRequested: cut?.type === 'stop-requested', budgetStopped };
  } finally {
    stopped.dispose();
    started.unsubscribe();
    // Settles a turn its last append did not (a failure, a stop): one request, only then.
    await started.ledger.finish();
  }
}

/** The turn's part in the usage ledger, sized by the session's model and its context as the last call reported it. */
function turnLedger(context: SessionContext, turn: LedgerTurn): TurnLedger {
  const { agent } = turn;
  const last = agent.conversation.lastAssistant();
  return new TurnLedger(context.usage, {
    owner: turn.owner,
    leaseId: turn.leaseId,
    slotMs: (turn.deadlineMs ?? DEFAULT_SLOT_DEADLINE_MS) + context.lease.leaseMs,
    provider: agent.provider.name,
    model: agent.provider.model,
    contextTokens: last === undefined ? 0 : usageTokens(last.usage),
    onBudgetStop: turn.onBudgetStop,
    report: (what, error) => reportUnseen(context, what, error),
  });
}

/**
 * An agent on the session, with the provider its model needs. A provider this server
 * cannot use (no key for it) throws `ProviderNotConfiguredError` before anything is written.
 */
async function sessionAgent(context: SessionContext, store: DynamoStore): Promise<Agent> {
  return (await resumedAgent(context, store)).agent;
}

/** {@link sessionAgent}, with the prompt the session ends in that never got its answer. */
async function resumedAgent(
  context: SessionContext,
  store: DynamoStore,
  at?: string | null,
  tools?: ToolRegistry,
): Promise<{ agent: Agent; danglingUser: string | null }> {
  // The head a lease or open read says which model the session uses; no load needed to pick it.
  const provider = sessionProvider(context, store);
  const { agent, danglingUser } = await Agent.resume(store, { provider, tools: tools ?? (await context.tools()) }, at === undefined ? {} : { at });
  context.observeAgent?.(agent);
  return { agent, danglingUser };
}

/**
 * The provider of the session's model. One this server does not know (an imported session
 * from a server with other providers) is, like one it holds no key for, a
 * `ProviderNotConfiguredError` (422): the request's body is not what is wrong.
 */
function sessionProvider(context: SessionContext, store: DynamoStore): Provider {
  try {
    return context.providers(store.activeModel() ?? {});
  } catch (error) {
    if (error instanceof UnknownProviderError) {
      throw new ProviderNotConfiguredError(
        error.provider,
        `this server has no such provider (it has ${error.known.join(', ')}); choose one with PATCH /sessions/{id}`,
      );
    }
    throw error;
  }
}

async function* follow(store: DynamoStore, options: { from?: number; signal: AbortSignal; pollMs: number }): AsyncGenerator<FollowEvent> {
  const followed = store.heldLease();
  yield { type: 'turn', turn: runningTurn(followed) };
  let next = options.from ?? followed?.firstEntry ?? store.metadata().entryCount;
  let shown: string | null = null;
  for (;;) {
    const entries = await store.loadEntries();
    for (; next < entries.length; next++) {
      const entry = entries[next]!;
      if (entry.type === 'message')
        yield { type: 'message', index: next, record: { type: 'message', id: entry.id, timestamp: entry.timestamp, message: entry.message } };
      if (entry.type === 'approval')
        yield { type: 'approval', index: next, record: { type: 'approval', id: entry.id, timestamp: entry.timestamp, decisions: entry.decisions } };
    }
    // The META of that same read says whether the turn still runs: nothing it wrote before it ended is missed.
    const held = store.heldLease();
    const running = held !== null && held.leaseId === followed?.leaseId;
    // The same read's partial answer: a message stored deletes it in its own transaction, so it is newer than every message above.
    const partial = running ? store.partialAnswer() : null;
    if (partial !== null && partial.updatedAt !== shown) {
      shown = partial.updatedAt;
      yield { type: 'partial', partial };
    }
    if (!running || options.signal.aborted) {
      // What the session waits on now: read from the entries already read (no request).
      const waiting = running ? [] : pendingApprovals(SessionTree.of(entries).load().conversation.messages);
      yield { type: 'end', entryCount: Math.max(next, entries.length), turn: running ? runningTurn(held) : null, pendingApprovals: waiting };
      return;
    }
    await pause(options.pollMs, options.signal);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
