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

  it('gives a stream cut short the usage it ran up: reported input, or an estimate from the request; output at least what streamed', async () => {
    // The wire reports input at the start (Anthropic `message_start`) or only at the end
    // (OpenAI's usage chunk), and the output count only at the end: neither had come when the cut came.
    server().enqueue({ text: 'Once upon a time there was a parser that read one token at a time', usage: { input: 21, output: 40 }, pauseAfterDeltas: 4 });
    const controller = new AbortController();
    let streamed = '';
    let deltas = 0;
    const events = await collect(provider().stream(PROMPT_REQUEST, { signal: controller.signal }), (event) => {
      if (event.type !== 'text-delta') return;
      streamed += event.delta;
      if (++deltas === 4) controller.abort();
    });
    const end = endOf(events);
    if (end?.type !== 'error' || end.partial === undefined) throw new Error('expected an aborted end event with a partial message');
    const { usage } = end.partial;
    const requestChars = server().requests[0]?.rawBody.length ?? 0;
    // Reported (21) where the wire reports input first; otherwise estimated, at a few characters of the request a token.
    expect(usage.input_tokens === 21 || (usage.input_tokens > 0 && usage.input_tokens < requestChars)).toBe(true);
    expect(usage.output_tokens).toBeGreaterThanOrEqual(Math.ceil(streamed.length / 4));
    expect(usage.output_tokens).toBeGreaterThan(0);
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
