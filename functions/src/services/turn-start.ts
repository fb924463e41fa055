/**
 * Starting a turn in one write: a store for the turn (no request when this process's cache
 * knows the session, else one Query), the agent on it, and the turn's opening append — its
 * prompt, or the decisions that resume a turn paused on tool approvals — which also takes the
 * session's lease, so that nothing but that one transaction stands between the request and
 * the provider call (or the approved tool call). Both ways in are this one path: the same
 * lease, usage ledger, partial answer and retry. The turn's last append gives the lease up in its own
 * transaction; a turn that ends without one (an error before any answer, a stop between tool
 * rounds) releases it with one UpdateItem, as `TurnLock.release` does.
 */
import { DynamoStore, type HeartbeatEnd, keepSessionLease, type LeaseHeartbeat, type SessionLease } from '@panto/aws/service';
import {
  type Agent,
  type ApprovalDecision,
  type DeferredProvider,
  type DiskApprovalRecord,
  type DiskMessageRecord,
  type Receiver,
  SessionConflictError,
  type ToolRegistry,
} from '@panto/core/agent-kit';
import { leaseClock, reportUnseen, type SessionContext, storeLocation } from './session-context.js';
import { writePartials } from './partial-writer.js';
import { release, type SessionLock } from './session-lock.js';
import { retitle, titleAfterFailedFirstPrompt } from './turn-title.js';
import type { TurnLedger } from './usage-turn.js';

/**
 * How a turn begins: a prompt, or the decisions on the tool calls a paused turn waits for
 * (every pending call decided; see `Agent.decideApprovals`), which resume it.
 */
export type TurnOpening = { type: 'prompt'; text: string } | { type: 'decisions'; decisions: readonly ApprovalDecision[] };

/** A turn whose opening is stored (the session's lease held with it), ready to run its step. */
export interface StartedTurn {
  agent: Agent;
  lock: SessionLock;
  /** What opened the turn, as stored: its prompt, or the approval entry that resumed it. */
  opened: DiskMessageRecord | DiskApprovalRecord;
  /** Every message record the turn persisted so far (the prompt, or a decision's denials, first); grows as the step runs. */
  records: DiskMessageRecord[];
  /** Stops seeing the agent's events (the receiver and the records). */
  unsubscribe(): void;
  /** The turn's part in the usage ledger; `finish` settles what no append did. */
  ledger: TurnLedger;
  /** Aborts once the owner's budget is spent: the step stops before its next provider call. */
  budget: AbortController;
}

export interface StartOptions {
  /** Continue from this entry instead of the active leaf (checked by `checkParent` before the prompt is written). */
  parentId?: string | null;
  /** Sees every event of the turn, the prompt's `entries-persisted` first. Must not throw. */
  receiver?: Receiver;
  /** The longest the turn may run: a concurrency slot it holds lapses after this and a lease term. */
  deadlineMs?: number;
}

/** What the usage ledger needs of a turn before its prompt is written. */
export interface LedgerTurn {
  owner: string;
  /** The lease the prompt's append will take: the ledger names the turn's concurrency slot by it. */
  leaseId: string;
  agent: Agent;
  deadlineMs: number | undefined;
  /** Stops the turn (before its next provider call) once the budget is spent. */
  onBudgetStop: () => void;
}

export interface StartDeps {
  /** The turn's part in the usage ledger: its writes ride on the turn's appends (the store's append hook). */
  ledgerOn(turn: LedgerTurn): TurnLedger;
  /**
   * The agent on the store (its provider and tools), and the prompt the session ends in that
   * never got its answer; the tools are fetched once, in parallel with the read.
   */
  agentOn(store: DynamoStore, tools: ToolRegistry, at: string | null | undefined): Promise<{ agent: Agent; danglingUser: string | null }>;
  /** Refuses a `parentId` the session does not hold or a prompt cannot follow (400), reading nothing the turn does not. */
  checkParent(store: DynamoStore, parentId: string | null): Promise<void>;
}

/**
 * Stores the turn's opening — taking the lease in the same transaction — and returns the turn
 * ready to run. `SessionBusyError` when another turn holds the session, `SessionNotFoundError`
 * when the owner may not see it, `ApprovalPendingError` for a prompt while tool calls wait for
 * a decision, `ApprovalDecisionError` for decisions that do not answer exactly the waiting
 * calls — all with nothing written. A cache that was behind (another process wrote the
 * session since) costs one refused write and one read, then the turn goes on (or, for a
 * decision another request made first, is refused as not pending).
 */
export async function startTurn(
  context: SessionContext,
  deps: StartDeps,
  owner: string,
  sessionId: string,
  opening: TurnOpening,
  options: StartOptions,
): Promise<StartedTurn> {
  // Not on the path: the tool list (an MCP server's, say) is fetched while the session is read.
  const tools = Promise.resolve(context.tools());
  for (let attempt = 0; ; attempt++) {
    const lock = new TurnLock(context, owner, sessionId);
    const store = await DynamoStore.forTurn({
      ...storeLocation(context, owner, sessionId),
      leaseMs: context.lease.leaseMs,
      onLeaseReleased: () => lock.givenUp(),
    });
    lock.store = store;
    if (options.parentId !== undefined) await deps.checkParent(store, options.parentId);
    const { agent, danglingUser } = await deps.agentOn(store, await tools, options.parentId);
    // A deferred provider's code (a cold process's first turn) loads while the prompt is stored, not after it.
    void (agent.provider as Partial<DeferredProvider>).load?.().catch(() => undefined);
    const records: DiskMessageRecord[] = [];
    const unrecord = agent.subscribe((event) => {
      if (event.type === 'entries-persisted') for (const record of event.records) if (record.type === 'message') records.push(record);
    });
    const unreceive = options.receiver === undefined ? undefined : agent.subscribe(options.receiver);
    const unsubscribe = (): void => {
      unrecord();
      unreceive?.();
    };
    // The usage ledger rides on the turn's appends: the prompt's checks the owner's limits and
    // reserves (a refusal is a 429 with nothing stored), each later one adds its usage.
    const budget = new AbortController();
    const ledger = deps.ledgerOn({ owner, leaseId: store.turnLeaseId()!, agent, deadlineMs: options.deadlineMs, onBudgetStop: () => budget.abort() });
    store.setAppendHook(ledger.hook);
    try {
      const was = store.metadata().title;
      const title =
        opening.type === 'prompt'
          ? titleAfterFailedFirstPrompt({ title: was, dangling: danglingUser, conversation: agent.conversation.messages }, opening.text)
          : null;
      await ledger.ready();
      const opened = opening.type === 'prompt' ? await agent.submitUserMessage(opening.text) : await agent.decideApprovals(opening.decisions);
      lock.taken(store.turnLease()!);
      if (title !== null && was !== null) await retitle(context, owner, sessionId, { was, title });
      const unpartial = writePartials(store, agent, leaseClock(context), (error) =>
        reportUnseen(context, `could not store the partial answer of session ${sessionId}`, error),
      );
      return {
        agent,
        lock,
        opened,
        records,
        ledger,
        budget,
        unsubscribe: () => {
          unpartial();
          unsubscribe();
          store.setAppendHook(null);
        },
      };
    } catch (error) {
      unsubscribe();
      store.setAppendHook(null);
      // The session moved past what this process had cached: read what is new, once.
      if (error instanceof SessionConflictError && attempt === 0) {
        context.cache.forgetMeta(sessionId);
        continue;
      }
      throw error;
    }
  }
}

/**
 * The lease of a turn whose prompt took it: renewed while the turn runs (its signal aborts
 * on a stop request or a lost lease), stopped once the turn's last append gave it up, and
 * released with one request only when no append did.
 */
class TurnLock implements SessionLock {
  store!: DynamoStore;
  readonly owner: string;
  readonly #context: SessionContext;
  readonly #sessionId: string;
  readonly #controller = new AbortController();
  #lease: SessionLease | null = null;
  #heartbeat: LeaseHeartbeat | null = null;
  #givenUp = false;

  constructor(context: SessionContext, owner: string, sessionId: string) {
    this.owner = owner;
    this.#context = context;
    this.#sessionId = sessionId;
  }

  /** The lease the turn's prompt takes (known before it does). */
  get leaseId(): string {
    return this.store.turnLeaseId()!;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get ended(): HeartbeatEnd | null {
    return this.#heartbeat?.ended ?? null;
  }

  /** The prompt's append took `lease`: renew it from now on. */
  taken(lease: SessionLease): void {
    this.#lease = lease;
    const heartbeat = keepSessionLease(lease, {
      renewEveryMs: this.#context.lease.renewEveryMs,
      clock: leaseClock(this.#context),
      onRenewalError: (error) =>
        reportUnseen(
          this.#context,
          `could not renew the lease of session ${this.#sessionId} (it holds until ${new Date(lease.expiresAt).toISOString()})`,
          error,
        ),
    });
    this.#heartbeat = heartbeat;
    heartbeat.signal.addEventListener('abort', () => this.#controller.abort(heartbeat.signal.reason), { once: true });
  }

  /** An append marked last gave the lease up: nothing left to renew or release. */
  givenUp(): void {
    this.#givenUp = true;
    void this.#heartbeat?.stop();
  }

  async release(): Promise<void> {
    await this.#heartbeat?.stop();
    if (this.#lease === null || this.#givenUp) return;
    // A partial answer no append deleted (the turn ended with nothing to commit) goes first, while the lease still holds.
    await this.store
      .discardPartial()
      .catch((error: unknown) => reportUnseen(this.#context, `could not delete the partial answer of session ${this.#sessionId}`, error));
    // The turn's last write: its prompt left `updated_at` and the indexes to it.
    await release(this.#context, this.#lease, this.#sessionId, { touchedAt: new Date(leaseClock(this.#context).now()).toISOString() });
  }
}
