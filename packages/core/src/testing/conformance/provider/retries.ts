import { expect, it } from 'vitest';
import { ProviderError } from '../../../errors.js';
import type { ProviderEvent } from '../../../providers/provider.js';
import { endOf, RETRY_AFTER_MS, type ProviderSuite, TIMER_SLACK_MS, watchTimers } from './suite.js';

/** HTTP errors: what the SDK retries, how long it waits, when it gives up, and what it never retries. */
export function describeRetryContract({ harness, server, run, retryTimer }: ProviderSuite): void {
  const { wire } = harness;
  it('retries a 429 after the retry-after the server sent, then succeeds', async () => {
    server().enqueue({ status: 429, headers: wire.retryAfter.headers(RETRY_AFTER_MS) }, { text: 'Second time lucky.' });
    const timers = watchTimers();
    let events: ProviderEvent[];
    try {
      events = await run();
    } finally {
      timers.restore();
    }
    expect(endOf(events)).toMatchObject({
      type: 'message-end',
      message: { content: [{ type: 'text', text: 'Second time lucky.' }] },
    });
    expect(server().requests).toHaveLength(2);
    expect(retryTimer(timers, RETRY_AFTER_MS)).toBe(true);
    const [first, second] = server().requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(RETRY_AFTER_MS - TIMER_SLACK_MS);
  });

  it.each(wire.serverErrors)('retries a %i too', async (status) => {
    server().enqueue({ status }, { text: 'ok' });
    expect(endOf(await run())).toMatchObject({
      type: 'message-end',
      message: { content: [{ type: 'text', text: 'ok' }] },
    });
    expect(server().requests).toHaveLength(2);
  });

  it('gives up after maxRetries and reports the 429 as a retryable ProviderError', async () => {
    server().enqueue({ status: 429 }, { status: 429 });
    const end = endOf(await run({ maxRetries: 1 }));
    expect(end?.type === 'error' && end.error).toBeInstanceOf(ProviderError);
    expect(end?.type === 'error' && end.error).toMatchObject({
      provider: harness.name,
      status: 429,
      type: wire.rateLimitType,
      retryable: true,
    });
    expect(server().requests).toHaveLength(2);
  });

  it('turns a 400 into a ProviderError with the status, the error type and the API message, without retrying', async () => {
    server().enqueue({ status: 400, errorBody: wire.badRequest.body });
    const events = await run();
    expect(events).toHaveLength(1);
    const end = endOf(events);
    expect(end?.type === 'error' && end.error).toBeInstanceOf(ProviderError);
    expect(end?.type === 'error' && end.error).toMatchObject({
      status: 400,
      type: wire.badRequest.type,
      retryable: false,
    });
    expect(end?.type === 'error' && end.error.message).toContain(wire.badRequest.message);
    expect(server().requests).toHaveLength(1);
  });
}
