import { expect, it } from 'vitest';
import { AbortedError } from '../../../errors.js';
import { waitUntil } from '../../wait-until.js';
import { collect, endOf, PROMPT_REQUEST, type ProviderSuite, watchTimers } from './suite.js';

/** The signal: a hanging stream, a pending response, the SDK's backoff, a signal aborted before the call. */
export function describeAbortContract({ harness, server, provider, run, retryTimer }: ProviderSuite): void {
  it('cancels a hanging stream when the signal aborts: an aborted end event keeps the text so far', async () => {
    server().enqueue({ text: 'Hello there world', hang: true });
    const controller = new AbortController();
    const events = await collect(provider().stream(PROMPT_REQUEST, { signal: controller.signal }), (event) => {
      if (event.type === 'text-delta') controller.abort();
    });
    const end = endOf(events);
    expect(end?.type).toBe('error');
    if (end?.type !== 'error') return;
    expect(end.error).toBeInstanceOf(AbortedError);
    expect(end.partial).toMatchObject({ content: [{ type: 'text', text: 'Hello' }], stop_reason: 'aborted' });
  });

  it('cancels a request still waiting for its response when the signal aborts', async () => {
    server().enqueue({ text: 'too late', delayMs: 60_000 });
    const controller = new AbortController();
    const running = run(undefined, controller.signal);
    await waitUntil(() => server().requests.length === 1, { message: 'the fake server received the request' });
    controller.abort();
    expect(endOf(await running)).toMatchObject({ type: 'error', error: expect.any(AbortedError) as unknown });
  });

  it("cancels while the SDK waits out a 429's retry-after, without a second request", async () => {
    const retryAfterMs = 30_000;
    server().enqueue({ status: 429, headers: harness.wire.retryAfter.headers(retryAfterMs) }, { text: 'never asked for' });
    const controller = new AbortController();
    const timers = watchTimers();
    try {
      const running = run(undefined, controller.signal);
      await waitUntil(() => retryTimer(timers, retryAfterMs), {
        message: `the SDK scheduled its ${retryAfterMs} ms retry-after backoff`,
      });
      controller.abort();
      expect(endOf(await running)).toMatchObject({ type: 'error', error: expect.any(AbortedError) as unknown });
    } finally {
      timers.restore();
    }
    expect(server().requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await run(undefined, controller.signal);
    expect(events).toHaveLength(1);
    expect(endOf(events)).toMatchObject({ type: 'error', error: expect.any(AbortedError) as unknown });
    expect(server().requests).toHaveLength(0);
  });
}
