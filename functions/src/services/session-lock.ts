/**
 * Holding a session: its lease, taken with one request that also proves the owner and returns
 * the session's head, renewed while held, and released — by a turn, a compaction, a leaf
 * switch or a model change, so that nothing else changes the session meanwhile.
 */
import { DynamoStore, type HeartbeatEnd, keepSessionLease, type ReleaseOptions, type SessionLease } from '@panto/aws/service';
import { leaseClock, reportUnseen, type SessionContext, storeLocation } from './session-context.js';

/**
 * A session nobody else may change until {@link SessionLock.release}: its lease, renewed
 * while the lock is held.
 */
export interface SessionLock {
  store: DynamoStore;
  /** Whose session it is, and the lease that holds it (the usage ledger names a turn's concurrency slot by it). */
  owner: string;
  leaseId: string;
  /** Aborts when the turn must stop: a stop was requested (reason: `StopRequestedError`), or the lease was lost. */
  signal: AbortSignal;
  /** Why `signal` aborted; null while it has not. */
  readonly ended: HeartbeatEnd | null;
  /** Stops renewing and frees the session. Never rejects. */
  release(): Promise<void>;
}

/**
 * Pauses before each retry of a lease release that failed. A lease that is not released
 * holds its session for the rest of its term (30 s by default), so when the store fails (an
 * outage that also ended the turn) the release is tried again within the request, in case
 * the store is back: five more times over about three seconds.
 */
const RELEASE_RETRY_DELAYS_MS: readonly number[] = [100, 200, 400, 800, 1600];

/**
 * Takes the session's lease, and a store on it, with one request, and renews it until
 * released (a `SessionBusyError` when another turn holds it). The caller must release the lock.
 */
export async function lockSession(context: SessionContext, owner: string, sessionId: string): Promise<SessionLock> {
  const clock = leaseClock(context);
  const { leaseMs, renewEveryMs } = context.lease;
  const { store, lease } = await DynamoStore.lease({ ...storeLocation(context, owner, sessionId), leaseMs });
  const heartbeat = keepSessionLease(lease, {
    renewEveryMs,
    clock,
    onRenewalError: (error) =>
      reportUnseen(context, `could not renew the lease of session ${sessionId} (it holds until ${new Date(lease.expiresAt).toISOString()})`, error),
  });
  return {
    store,
    owner,
    leaseId: lease.leaseId,
    signal: heartbeat.signal,
    get ended() {
      return heartbeat.ended;
    },
    release: async () => {
      await heartbeat.stop();
      await release(context, lease, sessionId);
    },
  };
}

/** Runs `work` holding the session's lease, and releases it whatever `work` does. */
export async function withSessionLock<T>(context: SessionContext, owner: string, sessionId: string, work: (lock: SessionLock) => Promise<T>): Promise<T> {
  const lock = await lockSession(context, owner, sessionId);
  try {
    return await work(lock);
  } finally {
    await lock.release();
  }
}

/**
 * Releases a lease, retrying with backoff while the store fails. Never rejects: a lease
 * that cannot be released expires by itself, and the turn's answer stands.
 */
export async function release(context: SessionContext, lease: SessionLease, sessionId: string, options?: ReleaseOptions): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await lease.release(options);
      return;
    } catch (error) {
      const delay = RELEASE_RETRY_DELAYS_MS[attempt];
      if (delay !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        continue;
      }
      reportUnseen(
        context,
        `could not release the lease of session ${sessionId}; it holds the session until ${new Date(lease.expiresAt).toISOString()}`,
        error,
      );
      return;
    }
  }
}
