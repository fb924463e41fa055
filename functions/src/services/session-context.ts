/**
 * What every part of the session service shares: its dependencies, and what each part does
 * the same way — open a session's store, answer a session as listed or as read, report a
 * failure that reaches no caller.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  DynamoStore,
  type DynamoStoreOpenOptions,
  type HeldLease,
  type LeaseClock,
  type PartialAnswer,
  type OwnerLimits,
  type SessionCache,
  type SessionMetadata,
  SYSTEM_LEASE_CLOCK,
} from '@panto/aws/service';
import type { ActiveModel, Agent, LoadedSession, Message, PendingApproval, RecordEntry, ToolRegistry, Usage } from '@panto/core';
import { pendingApprovals } from '@panto/core/agent-kit';
import type { ModelPriceTable } from '../model-prices.js';
import type { ProviderResolver } from '../agent/provider-resolver.js';
import { outageOf } from '../errors.js';
import { NO_LIMITS, UsageLedger } from './usage-ledger.js';

export interface SessionServiceDeps {
  dynamo: DynamoDBClient;
  tableName: string;
  s3: S3Client;
  bucket: string;
  providers: ProviderResolver;
  /** Sessions this process has read (one per process; see SessionCache). */
  cache: SessionCache;
  /** The tools a turn offers; a fresh registry per call. Must not reject. */
  tools: () => ToolRegistry | Promise<ToolRegistry>;
  /** Sessions expire this long after their last write; never when absent. */
  sessionTtlSeconds?: number;
  /** Where failures that do not reach the caller are reported. Must not throw. */
  log: (message: string, error: unknown) => void;
  /** Where a backend outage that does not reach the caller is reported, in one short line. Must not throw. */
  logOutage: (message: string) => void;
  /** The turn lease: its term, and how often a running turn renews it (see ServiceLimits). */
  lease: { leaseMs: number; renewEveryMs: number };
  /** The clock leases are taken, renewed and judged by (default: the system clock). */
  clock?: LeaseClock;
  /** Sees each agent a turn or compaction builds, before it runs (tracing subscribes here). Must not throw. */
  observeAgent?: (agent: Agent) => void;
  /** The limits of an owner without overrides (`PANTO_BUDGET_*`, `PANTO_TURNS_PER_MINUTE`, `PANTO_CONCURRENT_TURNS`); none when absent. */
  usageLimits?: OwnerLimits;
  /** The operator's model prices (`PANTO_MODEL_PRICES`), counted before the catalog's; none when absent. */
  modelPrices?: ModelPriceTable;
}

/** A session as listed. */
export interface SessionSummary {
  metadata: SessionMetadata;
  /** The model its next turn uses: its own, or the server's default. */
  activeModel: ActiveModel;
}

export interface SessionContents {
  id: string;
  messages: readonly Message[];
  /** The entry each message came from (same order); null for a tool result the rebuild synthesized. */
  entries: readonly (RecordEntry | null)[];
  danglingUser: string | null;
  activeModel: ActiveModel;
  usage: Usage;
  /** Entries of the log that `messages` reflects: where to follow it from. */
  entryCount: number;
  /** The turn (or compaction) running on the session, as its lease shows; null when none runs. */
  turn: RunningTurn | null;
  /** The tool calls the session waits on (its last turn paused on them), in the model's order; empty when none. */
  pendingApprovals: readonly PendingApproval[];
}

/** A turn that holds a session's lease. */
export interface RunningTurn {
  /** Epoch milliseconds; null for a lease taken before this was recorded. */
  startedAt: number | null;
  /** Whether it was asked to stop (it stops at its next chunk or tool boundary). */
  stopRequested: boolean;
  /** The answer it has produced so far (stored about once a second), when known; null when none is, or it was not read. */
  partial: PartialAnswer | null;
}

/** The session service's dependencies, as its parts share them, with the server's default model. */
export interface SessionContext extends SessionServiceDeps {
  /** The server's default model, which sessions that chose none use (worked out once). */
  defaultModel(): ActiveModel;
  /** The owners' usage ledger: totals, limits, and the overrides this process has seen. */
  usage: UsageLedger;
}

export function sessionContext(deps: SessionServiceDeps): SessionContext {
  let model: ActiveModel | undefined;
  const clock = deps.clock ?? SYSTEM_LEASE_CLOCK;
  return {
    ...deps,
    usage: new UsageLedger({
      dynamo: deps.dynamo,
      tableName: deps.tableName,
      defaults: deps.usageLimits ?? NO_LIMITS,
      prices: deps.modelPrices ?? {},
      now: () => clock.now(),
    }),
    defaultModel() {
      if (!model) {
        const provider = deps.providers({});
        model = { provider: provider.name, model: provider.model };
      }
      return model;
    },
  };
}

export async function openStore(context: SessionContext, owner: string, sessionId: string): Promise<DynamoStore> {
  return DynamoStore.open(storeLocation(context, owner, sessionId));
}

/** Where a session's store is, and how it is read: what `DynamoStore.open` and `DynamoStore.lease` take. */
export function storeLocation(context: SessionContext, owner: string, sessionId: string): DynamoStoreOpenOptions {
  const clock = leaseClock(context);
  // Leases are taken and judged by the lease clock, whether held here or read from META.
  return {
    client: context.dynamo,
    tableName: context.tableName,
    sessionId,
    owner,
    cache: context.cache,
    clock: () => new Date(clock.now()),
    ...storeBucket(context),
  };
}

/** The bucket a store offloads big messages to. */
export function storeBucket(context: SessionContext): { s3: { client: S3Client; bucket: string } } {
  return { s3: { client: context.s3, bucket: context.bucket } };
}

/** How long a session this service writes lives (`ttlSeconds` for the store); forever when not configured. */
export function storeTtl(context: SessionContext): { ttlSeconds?: number } {
  return context.sessionTtlSeconds === undefined ? {} : { ttlSeconds: context.sessionTtlSeconds };
}

export function leaseClock(context: SessionContext): LeaseClock {
  return context.clock ?? SYSTEM_LEASE_CLOCK;
}

export function summaryOf(context: SessionContext, metadata: SessionMetadata): SessionSummary {
  return { metadata, activeModel: metadata.activeModel ?? context.defaultModel() };
}

export function contentsOf(
  context: SessionContext,
  store: DynamoStore,
  { conversation, danglingUser, entries }: LoadedSession,
  partial: PartialAnswer | null = null,
): SessionContents {
  const metadata = store.metadata();
  return {
    id: store.sessionId(),
    messages: conversation.messages,
    entries,
    danglingUser,
    activeModel: summaryOf(context, metadata).activeModel,
    usage: conversation.usage(),
    entryCount: metadata.entryCount,
    turn: runningTurn(store.heldLease(), partial),
    pendingApprovals: pendingApprovals(conversation.messages),
  };
}

/** Logs a failure that reaches no caller: an outage in one line, anything else with its cause. */
export function reportUnseen(context: SessionContext, what: string, error: unknown): void {
  const outage = outageOf(error);
  if (outage !== null) context.logOutage(`${what}: backend unavailable: ${outage}`);
  else context.log(what, error);
}

/** What a lease on META says of the turn that holds it; null when none does. */
export function runningTurn(lease: HeldLease, partial?: PartialAnswer | null): RunningTurn;
export function runningTurn(lease: HeldLease | null, partial?: PartialAnswer | null): RunningTurn | null;
export function runningTurn(lease: HeldLease | null, partial: PartialAnswer | null = null): RunningTurn | null {
  return lease === null ? null : { startedAt: lease.startedAt, stopRequested: lease.stopRequested, partial };
}
