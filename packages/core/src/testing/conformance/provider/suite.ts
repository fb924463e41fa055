import { afterEach, beforeEach, vi } from 'vitest';
import type { Provider, ProviderEvent, ProviderRequest } from '../../../providers/provider.js';
import type { ConformanceServer, ProviderConformanceHarness, ProviderConformanceOptions } from './harness.js';

/** The one-prompt request the streaming cases send. */
export const PROMPT_REQUEST: ProviderRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [] };

/**
 * A `retry-after-ms` the SDK must honour: distinct from every other timer in play, so the
 * suite can tell the SDK's backoff timer apart.
 */
export const RETRY_AFTER_MS = 75;
/** Node may fire a timer up to a millisecond before its delay as `performance.now()` sees it. */
export const TIMER_SLACK_MS = 2;

/** What each area of the provider suite registers its cases with. */
export interface ProviderSuite<Server extends ConformanceServer = ConformanceServer> {
  readonly harness: ProviderConformanceHarness<Server>;
  /** The running case's fake server (a new one for every case). */
  server(): Server;
  /** A new provider under test, talking to the case's server. */
  provider(options?: ProviderConformanceOptions): Provider;
  /** Every event of one call with {@link PROMPT_REQUEST}. */
  run(options?: ProviderConformanceOptions, signal?: AbortSignal): Promise<ProviderEvent[]>;
  /** Queues a recorded body, sent byte for byte with the wire's stream content type. */
  replay(body: string | Uint8Array): void;
  /** Whether a timer was scheduled that the SDK would sleep for the retry-after hint `ms` (see `WireFacts.retryAfter`). */
  retryTimer(timers: Timers, ms: number): boolean;
}

/** The suite's context; starts a fake server before each case and closes it after (call it inside the suite's `describe`). */
export function providerSuite<Server extends ConformanceServer>(harness: ProviderConformanceHarness<Server>): ProviderSuite<Server> {
  let current: Server | undefined;
  beforeEach(async () => {
    current = await harness.server.start();
  });
  afterEach(async () => {
    await current?.close();
  });
  const server = (): Server => {
    if (current === undefined) throw new Error('the fake server runs only inside a case');
    return current;
  };
  const provider = (options?: ProviderConformanceOptions): Provider => harness.create(server(), options);
  return {
    harness,
    server,
    provider,
    run: (options, signal = new AbortController().signal) => collect(provider(options).stream(PROMPT_REQUEST, { signal })),
    replay: (body) => server().enqueueRaw({ status: 200, headers: { 'content-type': harness.wire.streamContentType }, body }),
    retryTimer: (timers, ms) => {
      const [min, max] = harness.wire.retryAfter.delay(ms);
      return timers.scheduledWithin(min, max);
    },
  };
}

/** Every event of a stream, in order; `onEvent` sees each as it arrives. */
export async function collect(stream: AsyncIterable<ProviderEvent>, onEvent: (event: ProviderEvent) => void = () => {}): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent(event);
  }
  return events;
}

export function endOf(events: ProviderEvent[]): ProviderEvent | undefined {
  return events[events.length - 1];
}

/**
 * Records the delays of the timers set while it is on (passing every call through), so a
 * case can see that the SDK's backoff sleep began, and for how long, instead of guessing
 * with a sleep of its own.
 */
export interface Timers {
  /** A timer of exactly `ms` was set. */
  scheduled(ms: number): boolean;
  /** A timer of `min` to `max` ms was set. */
  scheduledWithin(min: number, max: number): boolean;
  restore(): void;
}

export function watchTimers(): Timers {
  const spy = vi.spyOn(globalThis, 'setTimeout');
  let kept: unknown[] | undefined;
  const delays = (): unknown[] => kept ?? spy.mock.calls.map((call) => call[1]);
  return {
    scheduled: (ms) => delays().includes(ms),
    scheduledWithin: (min, max) => delays().some((delay) => typeof delay === 'number' && delay >= min && delay <= max),
    restore: () => {
      kept = delays(); // restoring the spy forgets its calls
      spy.mockRestore();
    },
  };
}
