/**
 * Keeping a turn lease alive while its turn runs: renew it every `renewEveryMs` (the lease
 * lasts several periods, so one or two failed renewals do not lose it), and tell the holder
 * to stop — through an AbortSignal — when a stop was requested or the lease is lost.
 */
import { SessionNotFoundError } from '@panto/core/store-kit';
import { SessionLeaseLostError, StopRequestedError } from '../errors.js';
import type { SessionLease } from './session-lease.js';

/**
 * The time a heartbeat keeps: what now is, and a timer. Inject a manual one (such as
 * `ManualClock` of @panto/core/testing) to test renewals without waiting.
 */
export interface LeaseClock {
  /** Epoch milliseconds. */
  now(): number;
  /** Calls `callback` once, `ms` from now. Returns a function that cancels it (harmless after it ran). */
  schedule(callback: () => void, ms: number): () => void;
}

/** The system clock and `setTimeout`; its timers do not keep the process alive. */
export const SYSTEM_LEASE_CLOCK: LeaseClock = {
  now: () => Date.now(),
  schedule(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface KeepSessionLeaseOptions {
  /** Milliseconds between renewals; at most half the lease's term (a third leaves room for one failure). */
  renewEveryMs: number;
  /** Default {@link SYSTEM_LEASE_CLOCK}. Use the clock the lease judges expiry by. */
  clock?: LeaseClock;
  /** Sees each renewal that failed without losing the lease (store unreachable, throttled). Must not throw. */
  onRenewalError?: (error: unknown) => void;
}

/** Why a heartbeat ended its holder's turn, and the error its signal was aborted with. */
export type HeartbeatEnd =
  | { type: 'stop-requested'; error: StopRequestedError }
  /** `error` is `SessionLeaseLostError` (taken, or lapsed on the holder's own clock) or `SessionNotFoundError` (deleted). */
  | { type: 'lease-lost'; error: Error };

export interface LeaseHeartbeat {
  /**
   * Aborts when the holder must stop: a stop was requested (reason: `StopRequestedError`) or
   * the lease was lost (reason: the error that says how). The heartbeat goes on renewing
   * after a stop request, so the holder still holds the lease while it writes its last batch.
   */
  readonly signal: AbortSignal;
  /** Why `signal` aborted; null while it has not. */
  readonly ended: HeartbeatEnd | null;
  /** Renewals that succeeded so far. */
  readonly renewals: number;
  /** Stops renewing, and waits for a renewal in flight to finish. Call before releasing the lease. Never rejects. */
  stop(): Promise<void>;
}

/**
 * Renews `lease` every `renewEveryMs` until {@link LeaseHeartbeat.stop}. The first renewal
 * comes one period after the call, so a turn shorter than that costs no renewal at all.
 * A renewal that is refused (another holder took the lease; the session was deleted) loses
 * the lease at once. One that fails otherwise is retried at the next period; once the
 * lease's expiry has passed on the clock with no renewal through, it is lost too — judged
 * on this clock, not the store's.
 *
 * @example
 * const heartbeat = keepSessionLease(lease, { renewEveryMs: 10_000 });
 * try {
 *   await agent.runStep(undefined, { signal: AbortSignal.any([deadline, heartbeat.signal]) });
 * } finally {
 *   await heartbeat.stop();
 *   await lease.release();
 * }
 */
export function keepSessionLease(lease: SessionLease, options: KeepSessionLeaseOptions): LeaseHeartbeat {
  const { renewEveryMs } = options;
  if (!(Number.isInteger(renewEveryMs) && renewEveryMs > 0)) throw new RangeError('renewEveryMs must be a positive integer');
  const clock = options.clock ?? SYSTEM_LEASE_CLOCK;
  const controller = new AbortController();
  let ended: HeartbeatEnd | null = null;
  let renewals = 0;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  let cancel = clock.schedule(() => beat(), renewEveryMs);

  const end = (how: HeartbeatEnd): void => {
    if (ended?.type === 'lease-lost') return;
    ended = how;
    if (!controller.signal.aborted) controller.abort(how.error);
  };
  const lose = (error: Error): void => {
    end({ type: 'lease-lost', error });
    stopped = true;
  };

  const renew = async (): Promise<void> => {
    try {
      const { stopRequested } = await lease.renew();
      renewals++;
      if (stopRequested && ended === null) end({ type: 'stop-requested', error: new StopRequestedError(lease.sessionId) });
    } catch (error) {
      if (error instanceof SessionLeaseLostError || error instanceof SessionNotFoundError) return lose(error);
      options.onRenewalError?.(error);
      if (clock.now() >= lease.expiresAt) return lose(new SessionLeaseLostError(lease.sessionId, { cause: error }));
    }
    if (!stopped) cancel = clock.schedule(() => beat(), renewEveryMs);
  };
  const beat = (): void => {
    if (stopped) return;
    inFlight = renew();
  };

  return {
    signal: controller.signal,
    get ended() {
      return ended;
    },
    get renewals() {
      return renewals;
    },
    async stop() {
      stopped = true;
      cancel();
      await inFlight;
    },
  };
}
