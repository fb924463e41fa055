import { SessionNotFoundError } from '@panto/core';
import { ManualClock, waitUntil } from '@panto/core/testing';
import { describe, expect, it } from 'vitest';
import { SessionLeaseLostError, StopRequestedError } from '../errors.js';
import { keepSessionLease } from './lease-heartbeat.js';
import type { LeaseRenewal, SessionLease } from './session-lease.js';

const LEASE_MS = 30_000;
const RENEW_EVERY_MS = 10_000;

/**
 * A lease whose renewals answer what the test scripts, one per call — a renewal with no
 * script left succeeds — and that judges time on the manual clock.
 */
class FakeLease implements SessionLease {
  readonly sessionId = 's1';
  readonly leaseId = 'L1';
  expiresAt: number;
  /** The clock time of every renewal that was asked for. */
  readonly asked: number[] = [];
  readonly script: Array<'ok' | 'stop' | Error> = [];
  #pending: Array<() => void> = [];
  /** While true, renewals wait until `finish()`: a renewal in flight. */
  hold = false;

  constructor(private readonly clock: ManualClock) {
    this.expiresAt = clock.now() + LEASE_MS;
  }

  async renew(): Promise<LeaseRenewal> {
    this.asked.push(this.clock.now());
    if (this.hold) await new Promise<void>((resolve) => this.#pending.push(resolve));
    const next = this.script.shift() ?? 'ok';
    if (next instanceof Error) throw next;
    this.expiresAt = this.clock.now() + LEASE_MS;
    return { expiresAt: this.expiresAt, stopRequested: next === 'stop' };
  }

  finish(): void {
    for (const resolve of this.#pending.splice(0)) resolve();
  }

  async release(): Promise<void> {}
}

/** Lets the renewal the clock just started settle (it resolves in microtasks, no I/O). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('keepSessionLease, on a frozen clock', () => {
  it('renews once per period while the turn runs, and never before the first period is over', async () => {
    const clock = new ManualClock(0);
    const lease = new FakeLease(clock);
    const heartbeat = keepSessionLease(lease, { renewEveryMs: RENEW_EVERY_MS, clock });
    clock.advance(RENEW_EVERY_MS - 1);
    await settle();
    expect(lease.asked).toEqual([]);
    for (let period = 1; period <= 6; period++) {
      clock.advance(period === 1 ? 1 : RENEW_EVERY_MS);
      await settle();
    }
    expect(lease.asked).toEqual([10_000, 20_000, 30_000, 40_000, 50_000, 60_000]);
    expect(heartbeat.renewals).toBe(6);
    // A minute in, the lease still holds a full term ahead: far past the 30 s it was taken for.
    expect(lease.expiresAt).toBe(90_000);
    expect(heartbeat.signal.aborted).toBe(false);
    expect(heartbeat.ended).toBeNull();
    await heartbeat.stop();
    clock.advance(10 * RENEW_EVERY_MS);
    await settle();
    expect(lease.asked).toHaveLength(6);
    expect(clock.pending).toBe(0);
  });

  it('aborts with StopRequestedError when a renewal reads a stop, and keeps renewing until stopped', async () => {
    const clock = new ManualClock(0);
    const lease = new FakeLease(clock);
    lease.script.push('ok', 'stop');
    const heartbeat = keepSessionLease(lease, { renewEveryMs: RENEW_EVERY_MS, clock });
    clock.advance(RENEW_EVERY_MS);
    await settle();
    expect(heartbeat.signal.aborted).toBe(false);
    clock.advance(RENEW_EVERY_MS);
    await settle();
    expect(heartbeat.signal.aborted).toBe(true);
    expect(heartbeat.signal.reason).toBeInstanceOf(StopRequestedError);
    expect(heartbeat.ended).toEqual({ type: 'stop-requested', error: heartbeat.signal.reason });
    // The holder still writes its last batch under the lease: it is kept alive until released.
    clock.advance(RENEW_EVERY_MS);
    await settle();
    expect(lease.asked).toEqual([10_000, 20_000, 30_000]);
    await heartbeat.stop();
  });

  it('loses the lease at once when a renewal is refused because another holder took it, and renews no more', async () => {
    const clock = new ManualClock(0);
    const lease = new FakeLease(clock);
    const taken = new SessionLeaseLostError('s1');
    lease.script.push(taken);
    const heartbeat = keepSessionLease(lease, { renewEveryMs: RENEW_EVERY_MS, clock });
    clock.advance(RENEW_EVERY_MS);
    await settle();
    expect(heartbeat.signal.reason).toBe(taken);
    expect(heartbeat.ended).toEqual({ type: 'lease-lost', error: taken });
    clock.advance(5 * RENEW_EVERY_MS);
    await settle();
    expect(lease.asked).toEqual([10_000]);
    await heartbeat.stop();
  });

  it('loses the lease when the session was deleted (SessionNotFoundError)', async () => {
    const clock = new ManualClock(0);
    const lease = new FakeLease(clock);
    const gone = new SessionNotFoundError('s1');
    lease.script.push(gone);
    const heartbeat = keepSessionLease(lease, { renewEveryMs: RENEW_EVERY_MS, clock });
    clock.advance(RENEW_EVERY_MS);
    await settle();
    expect(heartbeat.ended).toEqual({ type: 'lease-lost', error: gone });
  });

  it('rides out renewals that fail while the lease still holds, and loses it once its expiry passes on this clock', async () => {
    const clock = new ManualClock(0);
    const lease = new FakeLease(clock);
    const outage = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    lease.script.push(outage, outage, outage);
    const seen: unknown[] = [];
    const heartbeat = keepSessionLease(lease, {
      renewEveryMs: RENEW_EVERY_MS,
      clock,
      onRenewalError: (error) => seen.push(error),
    });
    clock.advance(RENEW_EVERY_MS);
    await settle();
    clock.advance(RENEW_EVERY_MS);
    await settle();
    // Two renewals failed, 20 s in: the lease (to 30 s) still holds; the turn goes on.
    expect(heartbeat.signal.aborted).toBe(false);
    expect(seen).toEqual([outage, outage]);
    clock.advance(RENEW_EVERY_MS);
    await settle();
    expect(heartbeat.signal.aborted).toBe(true);
    const ended = heartbeat.ended;
    expect(ended?.type).toBe('lease-lost');
    expect(ended?.type === 'lease-lost' ? ended.error : undefined).toBeInstanceOf(SessionLeaseLostError);
    expect((heartbeat.signal.reason as Error).cause).toBe(outage);
  });

  it('keeps the lease when the store comes back before the expiry', async () => {
    const clock = new ManualClock(0);
    const lease = new FakeLease(clock);
    lease.script.push(new Error('socket hang up'), new Error('socket hang up'), 'ok');
    const heartbeat = keepSessionLease(lease, { renewEveryMs: 9_000, clock });
    for (let i = 0; i < 3; i++) {
      clock.advance(9_000);
      await settle();
    }
    expect(heartbeat.signal.aborted).toBe(false);
    expect(lease.expiresAt).toBe(27_000 + LEASE_MS);
    await heartbeat.stop();
  });

  it('waits for a renewal in flight when stopped, so a release never races it', async () => {
    const clock = new ManualClock(0);
    const lease = new FakeLease(clock);
    lease.hold = true;
    const heartbeat = keepSessionLease(lease, { renewEveryMs: RENEW_EVERY_MS, clock });
    clock.advance(RENEW_EVERY_MS);
    let stopped = false;
    const stopping = heartbeat.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    lease.finish();
    await stopping;
    await waitUntil(() => stopped, { message: 'the heartbeat stopped' });
    expect(clock.pending).toBe(0);
  });

  it('refuses a renewal period that is not a positive integer', () => {
    const clock = new ManualClock(0);
    expect(() => keepSessionLease(new FakeLease(clock), { renewEveryMs: 0, clock })).toThrow(RangeError);
  });
});
