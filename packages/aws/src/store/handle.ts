/**
 * What a `DynamoStore` holds, shared by its read, write and lease halves: the handle (clients,
 * table, owner and how it writes) and its view of the session (META and the log as it last
 * saw them).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { newId, systemClock, SessionLog } from '@panto/core/store-kit';
import type { S3Location } from '../entries/offload.js';
import type { SessionLease } from '../lease/session-lease.js';
import type { PartialAnswer } from '../partial/partial-answer.js';
import type { MetaRecord } from '../meta/meta-item.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../table/transaction-failures.js';
import type { SessionCache } from './session-cache.js';
import type { DynamoStoreCreateOptions, DynamoStoreOpenOptions } from './store-options.js';

export interface Handle {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  s3: S3Location | undefined;
  clock: () => Date;
  ids: () => string;
  retry: RetryPolicy;
  cache: SessionCache | undefined;
  /** The lease this handle writes under (a leased store), or null. */
  leaseId: string | null;
  /** A handle for a turn (`DynamoStore.forTurn`): its first append takes the lease, its last gives it up; else null. */
  turn: TurnLeaseState | null;
}

/** The lease of a handle for a turn, from before its first append until its last. */
export interface TurnLeaseState {
  /** How long the lease holds unless renewed, in milliseconds. */
  leaseMs: number;
  /** The id the first append takes the lease under (chosen up front: what else rides on that append may name it). */
  leaseId: string;
  /** The lease once the first append took it; null before. Kept after the release (`released`). */
  lease: SessionLease | null;
  /** Whether an append marked last gave the lease up: later appends are fenced out. */
  released: boolean;
  /** Told once an append gave the lease up. Must not throw. */
  onReleased: (() => void) | undefined;
  /** The partial answer writes in flight (an append waits for them), and whether one is stored that the next append deletes. */
  partialWrites: Promise<unknown>;
  partialStored: boolean;
  /** Whether an append is under way: no partial is written meanwhile (it could land after the append's delete). */
  appending: boolean;
}

/** The session as a handle last saw it. */
export interface SessionView {
  meta: MetaRecord;
  /** The log: every entry once a load read them, else only its head (after open or lease). */
  log: SessionLog;
  /** JSONL bytes of the entries the log holds (when it holds them): the cache's measure. */
  bytes: number;
  /** Whether `meta` was read consistently just now (open, lease) and nothing happened since. */
  metaFresh: boolean;
  /** The partial answer item the last read of the entries found, if any. */
  partial?: PartialAnswer | null;
}

export function handleOf(options: DynamoStoreOpenOptions | DynamoStoreCreateOptions): Handle {
  if (options.maxRetries !== undefined && !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)) {
    throw new RangeError('maxRetries must be a non-negative integer');
  }
  return {
    client: options.client,
    tableName: options.tableName,
    owner: options.owner,
    s3: options.s3,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? newId,
    retry: { ...DEFAULT_RETRY_POLICY, ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }) },
    cache: options.cache,
    leaseId: null,
    turn: null,
  };
}

/** Options that open another handle like this one (the same client, owner, S3, cache, clock) on `sessionId`. */
export function openOptionsOf(handle: Handle, sessionId: string): DynamoStoreOpenOptions {
  const { client, tableName, owner, s3, clock, ids, retry, cache } = handle;
  return {
    client,
    tableName,
    owner,
    sessionId,
    clock,
    ids,
    maxRetries: retry.maxRetries,
    ...(s3 === undefined ? {} : { s3 }),
    ...(cache === undefined ? {} : { cache }),
  };
}

/** The view of a handle that knows the session by a META item just read consistently: its log's head, without the entries. */
export function viewOfHead(meta: MetaRecord): SessionView {
  const log = SessionLog.fromHead({
    count: meta.metadata.entryCount,
    leafId: meta.metadata.head,
    resumeParent: meta.nextParent,
    activeModel: meta.metadata.activeModel,
  });
  return { meta, log, bytes: 0, metaFresh: true };
}

/** META once the session is hot: as read, or — archived — after restoring it (or waiting for whoever is). */
export async function restoreIfArchived(handle: Handle, sessionId: string, meta: MetaRecord): Promise<MetaRecord> {
  if (meta.archivedAt === null) return meta;
  const { client, tableName, owner, s3, clock } = handle;
  // The restore is loaded by the first archived session opened: a hot one never needs it.
  const { ensureRestored } = await import('../archive/restore-session.js');
  return ensureRestored({ client, tableName, owner, sessionId, s3, clock }, meta);
}
