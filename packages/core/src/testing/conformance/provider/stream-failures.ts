import { expect, it } from 'vitest';
import { ProviderError } from '../../../errors.js';
import { endOf, type ProviderSuite } from './suite.js';

/** A stream that reports an error, is not the wire's, or goes silent: an error event, never a throw. */
export function describeStreamErrorContract({ harness, server, run, replay }: ProviderSuite): void {
  const { wire, recorded } = harness;
  it('ends with an error event carrying a retryable ProviderError and only the text so far when an error event arrives mid-stream', async () => {
    replay(recorded.errorMidStream.body);
    const events = await run();
    expect(events.some((event) => event.type === 'message-end')).toBe(false);
    const end = endOf(events);
    expect(end?.type).toBe('error');
    if (end?.type !== 'error') return;
    expect(end.error).toBeInstanceOf(ProviderError);
    expect(end.error).toMatchObject({
      provider: harness.name,
      type: recorded.errorMidStream.type,
      status: undefined,
      retryable: true,
    });
    expect(end.error.message).toContain(recorded.errorMidStream.message);
    expect(end.partial).toMatchObject({
      content: [{ type: 'text', text: 'The answer begins here' }],
      stop_reason: 'error',
      error_message: end.error.message,
    });
  });

  it('reports a malformed stream as an error event instead of throwing', async () => {
    server().enqueueRaw({
      status: 200,
      headers: { 'content-type': wire.streamContentType },
      body: wire.malformedStream,
    });
    const events = await run();
    expect(events).toHaveLength(1);
    expect(endOf(events)).toMatchObject({
      type: 'error',
      error: { name: 'ProviderError', provider: harness.name, retryable: false },
    });
  });

  it('abandons a stream that goes silent for longer than timeoutMs', async () => {
    server().enqueue({ text: 'Hello there', hang: true });
    expect(endOf(await run({ timeoutMs: 1000 }))).toMatchObject({
      type: 'error',
      error: { name: 'ProviderError', type: 'idle_timeout', retryable: true },
      partial: { content: [{ type: 'text', text: 'Hello' }], stop_reason: 'error' },
    });
  });
}

/** A stream that drops or closes before the message is complete: a retryable error and only the complete text. */
export function describeDroppedStreamContract({ server, run }: ProviderSuite): void {
  it('ends with a retryable error, never a message-end, when the connection drops mid-message', async () => {
    server().enqueue({ text: 'one two three four', dropAfterDeltas: 2 });
    const events = await run();
    expect(events.some((event) => event.type === 'message-end')).toBe(false);
    const end = endOf(events);
    expect(end?.type === 'error' && end.error).toMatchObject({
      name: 'ProviderError',
      type: 'stream_dropped',
      retryable: true,
    });
    expect(end?.type === 'error' && end.partial).toMatchObject({
      content: [{ type: 'text', text: 'one two' }],
      stop_reason: 'error',
    });
  });

  it('ends with a retryable error when the stream closes before the message is complete, keeping only the text', async () => {
    // The text's two deltas and the call's first piece arrive; then the stream ends cleanly.
    server().enqueue({
      text: 'Checking weather.',
      toolCalls: [{ id: 'call_1', name: 'get_weather', input: { location: 'Paris' } }],
      endAfterDeltas: 3,
    });
    const events = await run();
    expect(events.some((event) => event.type === 'tool-call-start')).toBe(true);
    expect(events.some((event) => event.type === 'tool-call-end' || event.type === 'message-end')).toBe(false);
    const end = endOf(events);
    expect(end?.type === 'error' && end.error).toMatchObject({ type: 'stream_dropped', retryable: true });
    // The half-formed tool call is neither committed nor offered as partial.
    expect(end?.type === 'error' && end.partial?.content).toEqual([{ type: 'text', text: 'Checking weather.' }]);
  });

  it('offers no partial when a stream of tool calls alone closes before the message is complete', async () => {
    server().enqueue({
      toolCalls: [{ id: 'call_1', name: 'get_weather', input: { location: 'Paris' } }],
      endAfterDeltas: 2,
    });
    const events = await run();
    expect(events.some((event) => event.type === 'tool-call-end')).toBe(false);
    const end = endOf(events);
    expect(end?.type === 'error' && end.error).toMatchObject({ type: 'stream_dropped', retryable: true });
    expect(end?.type === 'error' && end.partial).toBeUndefined();
  });
}
