/**
 * A clock that moves only when told, with timers that fire only then: for code that takes a
 * `{ now(), schedule(callback, ms) }` clock (such as @panto/aws's `LeaseClock`), so a test
 * can run ten minutes of renewals in a millisecond and never pass by waiting.
 *
 * @example
 * const clock = new ManualClock();
 * const heartbeat = keepSessionLease(lease, { renewEveryMs: 10_000, clock });
 * clock.advance(10_000);   // the renewal is due: it starts now
 * await waitUntil(() => heartbeat.renewals === 1, { message: 'the lease was renewed' });
 */
export class ManualClock {
  #now: number;
  #timers: { at: number; order: number; callback: () => void }[] = [];
  #order = 0;

  /** `startMs`: epoch milliseconds (default 2026-01-01T00:00:00Z). */
  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }

  /** Epoch milliseconds. */
  now(): number {
    return this.#now;
  }

  /** Calls `callback` once the clock has been advanced `ms` past now. Returns a function that cancels it. */
  schedule(callback: () => void, ms: number): () => void {
    const timer = { at: this.#now + Math.max(0, ms), order: this.#order++, callback };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((each) => each !== timer);
    };
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.#timers.length;
  }

  /**
   * Moves the clock `ms` forward, firing every timer that falls due on the way, in time
   * order, each with the clock set to its own time — including timers those callbacks
   * schedule within the span. Callbacks run synchronously; what they start asynchronously
   * is the test's to await.
   */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== due);
      this.#now = Math.max(this.#now, due.at);
      due.callback();
    }
    this.#now = target;
  }
}
