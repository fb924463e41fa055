/**
 * The errors @panto/aws throws on purpose. The store errors every backend shares
 * (`SessionConflictError`, `SessionNotFoundError`, `InvalidBatchError`,
 * `SessionCorruptError`, `EntryNotFoundError`) come from @panto/core and are re-exported, not redefined, so
 * `instanceof` works whichever package a caller imports them from.
 */
import { PantoError } from '@panto/core/store-kit';

export {
  EntryNotFoundError,
  InvalidBatchError,
  InvalidSessionIdError,
  PantoError,
  SessionConflictError,
  SessionCorruptError,
  SessionNotFoundError,
} from '@panto/core/store-kit';

/**
 * Another holder has the session's turn lease and it has not expired. Nothing changed.
 * Try again after `leaseExpiresAt` (epoch milliseconds), when the store could tell.
 */
export class SessionBusyError extends PantoError {
  readonly sessionId: string;
  readonly leaseExpiresAt: number | null;
  constructor(sessionId: string, leaseExpiresAt: number | null, options?: ErrorOptions) {
    super(`session ${sessionId} is busy: another request holds its lease`, options);
    this.name = 'SessionBusyError';
    this.sessionId = sessionId;
    this.leaseExpiresAt = leaseExpiresAt;
  }
}

/**
 * The holder's turn lease is gone: it lapsed (the holder did not renew it in time) and
 * another holder took it. A write refused for it wrote nothing; a renewal refused for it
 * changed nothing. The holder must stop: another turn may be running on the session.
 */
export class SessionLeaseLostError extends PantoError {
  readonly sessionId: string;
  constructor(sessionId: string, options?: ErrorOptions) {
    super(`session ${sessionId}: this turn's lease lapsed and another turn took the session`, options);
    this.name = 'SessionLeaseLostError';
    this.sessionId = sessionId;
  }
}

/** A stop asked of a session on which no turn holds a live lease. Nothing changed. */
export class TurnNotRunningError extends PantoError {
  readonly sessionId: string;
  constructor(sessionId: string, options?: ErrorOptions) {
    super(`session ${sessionId}: no turn is running`, options);
    this.name = 'TurnNotRunningError';
    this.sessionId = sessionId;
  }
}

/**
 * Why a lease's heartbeat aborted its signal when someone asked the holder to stop
 * (`requestTurnStop`): the reason of that abort, never thrown by the package itself.
 */
export class StopRequestedError extends PantoError {
  readonly sessionId: string;
  constructor(sessionId: string, options?: ErrorOptions) {
    super(`session ${sessionId}: a stop was requested`, options);
    this.name = 'StopRequestedError';
    this.sessionId = sessionId;
  }
}

/** A `listOwnerSessions` cursor this code did not hand out (or one for another owner). */
export class InvalidCursorError extends PantoError {
  constructor(reason: string, options?: ErrorOptions) {
    super(`invalid cursor: ${reason}`, options);
    this.name = 'InvalidCursorError';
  }
}

/**
 * Something must go through S3 and the store has no bucket: an append whose batch does not
 * fit DynamoDB items and one transaction (a message over the 400 KB item limit, a batch
 * over the 4 MB transaction limit) — nothing was written — or a load of a session whose
 * entries were offloaded.
 */
export class OffloadRequiredError extends PantoError {
  readonly sessionId: string;
  /** Bytes of JSONL that would have had to go to S3. */
  readonly bytes: number;
  constructor(sessionId: string, bytes: number, reason: string, options?: ErrorOptions) {
    super(`session ${sessionId}: ${reason}, which needs an S3 bucket (the \`s3\` option); none is configured`, options);
    this.name = 'OffloadRequiredError';
    this.sessionId = sessionId;
    this.bytes = bytes;
  }
}

/** `DynamoStore.create` with a `sessionId` that is already taken. Nothing changed. */
export class SessionExistsError extends PantoError {
  readonly sessionId: string;
  constructor(sessionId: string, options?: ErrorOptions) {
    super(`session ${sessionId} already exists`, options);
    this.name = 'SessionExistsError';
    this.sessionId = sessionId;
  }
}

/**
 * An archived session is being restored (or its archive finished) by another request, and it
 * did not finish within the wait. Nothing changed; try again shortly.
 */
export class SessionRestoringError extends PantoError {
  readonly sessionId: string;
  constructor(sessionId: string, options?: ErrorOptions) {
    super(`session ${sessionId} is being restored from its archive by another request; try again shortly`, options);
    this.name = 'SessionRestoringError';
    this.sessionId = sessionId;
  }
}

/**
 * The archive claim this process held on a session lapsed and another holder took it (or the
 * session is being deleted): nothing more was written under it. Internal to archiving and
 * restoring, which stop (and, restoring, wait for the other holder) when they meet it.
 */
export class ArchiveClaimLostError extends PantoError {
  readonly sessionId: string;
  constructor(sessionId: string, options?: ErrorOptions) {
    super(`session ${sessionId}: the archive claim was lost`, options);
    this.name = 'ArchiveClaimLostError';
    this.sessionId = sessionId;
  }
}

/**
 * DynamoDB kept leaving writes of a BatchWriteItem unprocessed (it does so when the table is
 * throttled) after every retry. What was written stays; callers make partial progress
 * invisible, so a retry later is safe. The service answers it as throttling (503).
 */
export class UnprocessedWritesError extends PantoError {
  readonly tableName: string;
  readonly unprocessed: number;
  constructor(tableName: string, unprocessed: number, attempts: number, options?: ErrorOptions) {
    super(`DynamoDB left ${unprocessed} writes to ${tableName} unprocessed after ${attempts} attempts`, options);
    this.name = 'UnprocessedWritesError';
    this.tableName = tableName;
    this.unprocessed = unprocessed;
  }
}

/** One key S3's DeleteObjects did not delete, with S3's code and message for it. */
export interface ObjectNotDeleted {
  key: string;
  code: string;
  message: string;
}

/**
 * S3's DeleteObjects answered 200 but did not delete some keys (its per-key `Errors`). When
 * every failure is one S3 asks to retry (`InternalError`, `SlowDown`, `ServiceUnavailable`)
 * after the retries made here, it is `transient`, and the service answers 503 like an outage;
 * a deletion that stopped half-way is finished by the next one. Anything else (`AccessDenied`:
 * the bucket's policy) is a configuration error.
 */
export class ObjectsNotDeletedError extends PantoError {
  readonly bucket: string;
  readonly failures: readonly ObjectNotDeleted[];
  readonly transient: boolean;
  constructor(bucket: string, failures: readonly ObjectNotDeleted[], transient: boolean, options?: ErrorOptions) {
    const first = failures[0];
    super(
      `S3 did not delete ${failures.length} objects of bucket ${bucket} (first: ${first?.key ?? '?'}: ${first?.code ?? 'unknown'} ${first?.message ?? ''})`.trimEnd(),
      options,
    );
    this.name = 'ObjectsNotDeletedError';
    this.bucket = bucket;
    this.failures = failures;
    this.transient = transient;
  }
}

/**
 * A turn refused because its owner's spend budget (`limit`: `daily` or `monthly`) is spent,
 * counting what turns in flight have reserved. Nothing was written. Try again after
 * `retryAfterSeconds` (when the period resets) or once turns in flight have settled.
 */
export class BudgetExceededError extends PantoError {
  readonly owner: string;
  readonly limit: 'daily' | 'monthly';
  readonly retryAfterSeconds: number;
  constructor(owner: string, limit: 'daily' | 'monthly', retryAfterSeconds: number, options?: ErrorOptions) {
    super(`the ${limit} spend budget of ${owner} is spent; it resets in ${retryAfterSeconds} s`, options);
    this.name = 'BudgetExceededError';
    this.owner = owner;
    this.limit = limit;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A turn refused because its owner started as many turns this minute as allowed
 * (`limit: 'turns_per_minute'`) or has as many running as allowed (`'concurrent_turns'`).
 * Nothing was written. Try again after `retryAfterSeconds`.
 */
export class RateLimitedError extends PantoError {
  readonly owner: string;
  readonly limit: 'turns_per_minute' | 'concurrent_turns';
  readonly retryAfterSeconds: number;
  constructor(owner: string, limit: 'turns_per_minute' | 'concurrent_turns', retryAfterSeconds: number, options?: ErrorOptions) {
    super(
      limit === 'turns_per_minute'
        ? `${owner} started as many turns this minute as allowed; retry in ${retryAfterSeconds} s`
        : `${owner} has as many turns running as allowed; retry in ${retryAfterSeconds} s`,
      options,
    );
    this.name = 'RateLimitedError';
    this.owner = owner;
    this.limit = limit;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A LangGraph checkpoint that continues a run's line (`DynamoCheckpointSaver.put`) found that
 * another writer had moved the thread's line since the run read it: two runs on one thread at
 * once. Nothing was written; the run that gets it should read the thread again (invoke the
 * graph again). A deliberate branch — `updateState` or a replay from an earlier checkpoint,
 * which LangGraph marks `source: 'update'` / `'fork'` — is never refused.
 */
export class CheckpointConflictError extends PantoError {
  readonly threadId: string;
  readonly checkpointNs: string;
  /** The checkpoint the put continued from. */
  readonly expected: string;
  /** The namespace's newest checkpoint now, or null when the thread has none (deleted meanwhile). */
  readonly current: string | null;
  constructor(threadId: string, checkpointNs: string, expected: string, current: string | null, options?: ErrorOptions) {
    super(
      `thread ${threadId}${checkpointNs === '' ? '' : ` (namespace ${checkpointNs})`}: another run moved it from checkpoint ${expected} to ${current ?? 'nothing'} since this run read it; nothing was written`,
      options,
    );
    this.name = 'CheckpointConflictError';
    this.threadId = threadId;
    this.checkpointNs = checkpointNs;
    this.expected = expected;
    this.current = current;
  }
}
