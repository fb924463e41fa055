import { afterEach, beforeEach, vi } from 'vitest';
import type { Provider, ProviderEvent, ProviderRequest } from '../../../providers/provider.js';
import { FakeLLMServer } from '../../fake-llm/server.js';
import type { ProviderConformanceHarness, ProviderConformanceOptions } from './harness.js';

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
export interface ProviderSuite {
  readonly harness: ProviderConformanceHarness;
  /** The running case's fake server (a new one for every case). */
  server(): FakeLLMServer;
  /** A new provider under test, talking to the case's server. */
  provider(options?: ProviderConformanceOptions): Provider;
  /** Every event of one call with {@link PROMPT_REQUEST}. */
  run(options?: ProviderConformanceOptions, signal?: AbortSignal): Promise<ProviderEvent[]>;
  /** Queues a recorded SSE body, sent byte for byte. */
  replay(body: string): void;
}

/** The suite's context; starts a fake server before each case and closes it after (call it inside the suite's `describe`). */
export function providerSuite(harness: ProviderConformanceHarness): ProviderSuite {
  let current: FakeLLMServer | undefined;
  beforeEach(async () => {
    current = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await current?.close();
  });
  const server = (): FakeLLMServer => {
    if (current === undefined) throw new Error('the fake LLM server runs only inside a case');
    return current;
  };
  const provider = (options?: ProviderConformanceOptions): Provider => harness.create(server(), options);
  return {
    harness,
    server,
    provider,
    run: (options, signal = new AbortController().signal) => collect(provider(options).stream(PROMPT_REQUEST, { signal })),
    replay: (body) => server().enqueueRaw({ status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, body }),
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
export function watchTimers(): { scheduled(ms: number): boolean; restore(): void } {
  const spy = vi.spyOn(globalThis, 'setTimeout');
  let kept: unknown[] | undefined;
  const delays = (): unknown[] => kept ?? spy.mock.calls.map((call) => call[1]);
  return {
    scheduled: (ms) => delays().includes(ms),
    restore: () => {
      kept = delays(); // restoring the spy forgets its calls
      spy.mockRestore();
    },
  };
}
