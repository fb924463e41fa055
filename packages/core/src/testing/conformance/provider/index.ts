import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortedError, ProviderError } from '../../../errors.js';
import type { Provider, ProviderEvent, ProviderRequest, ProviderStreamEvent } from '../../../providers/provider.js';
import { FakeLLMServer } from '../../fake-llm/server.js';
import { describeAgentOverProvider } from './agent-loop.js';
import type { ProviderConformanceHarness, ProviderConformanceOptions } from './harness.js';
import { describeRequestMapping } from './request-mapping.js';
import { waitUntil } from '../../wait-until.js';

const request: ProviderRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [] };

/**
 * A `retry-after-ms` the SDK must honour: distinct from every other timer in play, so the
 * suite can tell the SDK's backoff timer apart.
 */
const RETRY_AFTER_MS = 75;
/** Node may fire a timer up to a millisecond before its delay as `performance.now()` sees it. */
const TIMER_SLACK_MS = 2;

/**
 * The behaviour every Provider must have, run against the real provider over HTTP on a
 * {@link FakeLLMServer}: streaming, tool calls, usage, stop reasons, error events, retries,
 * HTTP errors, dropped and silent streams, abort, the request body for each standard
 * conversation, and the agent loop on top. Call it from the provider's test file with a
 * harness for its wire; keep only what no other wire has in that file.
 *
 * @example
 * describeProviderConformance('AnthropicMessagesProvider', {
 *   name: 'anthropic',
 *   model: 'claude-test',
 *   create: (server, options) => new AnthropicMessagesProvider({ model: 'claude-test', apiKey: 'k', baseURL: server.anthropicBaseURL, ...options }),
 *   wire: { path: '/v1/messages', streaming: { stream: true }, … },
 *   recorded: { text: { body: fixture('anthropic-text.sse'), usage: usage(25, 15) }, … },
 *   requests: { basic: { model: 'claude-test', max_tokens: 1024, … }, … },
 *   agent: { resumed: { … }, toolLoop: { … } },
 * });
 */
export function describeProviderConformance(name: string, harness: ProviderConformanceHarness): void {
  describe(`${name} (Provider conformance)`, () => {
    let server: FakeLLMServer;
    beforeEach(async () => {
      server = await FakeLLMServer.start();
    });
    afterEach(async () => {
      await server.close();
    });
    const provider = (options?: ProviderConformanceOptions): Provider => harness.create(server, options);
    const run = (options?: ProviderConformanceOptions, signal = new AbortController().signal): Promise<ProviderEvent[]> =>
      collect(provider(options).stream(request, { signal }));
    const replay = (body: string): void => server.enqueueRaw({ status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, body });
    const { wire, recorded } = harness;

    describe('streaming', () => {
      it('streams text deltas as they arrive, then commits one message with usage and the real stop reason', async () => {
        replay(recorded.text.body);
        expect(await run()).toEqual([
          { type: 'text-start', index: 0 },
          { type: 'text-delta', index: 0, delta: 'Hello' },
          { type: 'text-delta', index: 0, delta: '! How can' },
          { type: 'text-delta', index: 0, delta: ' I help?' },
          { type: 'text-end', index: 0, text: 'Hello! How can I help?' },
          {
            type: 'message-end',
            message: {
              role: 'assistant',
              content: [{ type: 'text', text: 'Hello! How can I help?' }],
              provider: harness.name,
              model: harness.model,
              usage: recorded.text.usage,
              stop_reason: 'end_turn',
              raw_stop_reason: wire.rawStopReasons.endTurn,
            },
          },
        ]);
        expect(server.requests).toHaveLength(1);
        expect(server.requests[0]).toMatchObject({ method: 'POST', path: wire.path, body: wire.streaming });
      });

      it('assembles a tool call from its argument pieces, after the text before it', async () => {
        replay(recorded.toolCall.body);
        const id = recorded.toolCall.id;
        const input = { location: 'San Francisco, CA', unit: 'fahrenheit' };
        const text = 'Okay, let me check the weather in San Francisco.';
        expect(await run()).toEqual([
          { type: 'text-start', index: 0 },
          { type: 'text-delta', index: 0, delta: 'Okay, let me check' },
          { type: 'text-delta', index: 0, delta: ' the weather in San Francisco.' },
          { type: 'text-end', index: 0, text },
          { type: 'tool-call-start', index: 1, id, name: 'get_weather' },
          ...['{"location":', '"San Fra', 'ncisco, CA"', ', "unit": "fah', 'renheit"}'].map((delta) => ({
            type: 'tool-call-delta',
            index: 1,
            delta,
          })),
          { type: 'tool-call-end', index: 1, toolCall: { type: 'tool_call', id, name: 'get_weather', input } },
          {
            type: 'message-end',
            message: {
              role: 'assistant',
              content: [
                { type: 'text', text },
                { type: 'tool_call', id, name: 'get_weather', input },
              ],
              provider: harness.name,
              model: harness.model,
              usage: recorded.toolCall.usage,
              stop_reason: 'tool_use',
              raw_stop_reason: wire.rawStopReasons.toolUse,
            },
          },
        ]);
      });

      it('assembles several tool calls, each from its own pieces, ending them when the wire says they are complete', async () => {
        replay(recorded.parallelToolCalls.body);
        const [weatherId, timeId] = recorded.parallelToolCalls.ids;
        const weather = {
          type: 'tool_call',
          id: weatherId,
          name: 'get_weather',
          input: { location: 'Paris' },
        } as const;
        const time = { type: 'tool_call', id: timeId, name: 'get_time', input: { timezone: 'Europe/Paris' } } as const;
        const first: ProviderStreamEvent[] = [
          { type: 'tool-call-start', index: 0, id: weatherId, name: 'get_weather' },
          ...['{"lo', 'cation": "Pa', 'ris"}'].map((delta) => ({ type: 'tool-call-delta', index: 0, delta }) as const),
        ];
        const second: ProviderStreamEvent[] = [
          { type: 'tool-call-start', index: 1, id: timeId, name: 'get_time' },
          ...['{"timezone"', ': "Europe/Paris"}'].map((delta) => ({ type: 'tool-call-delta', index: 1, delta }) as const),
        ];
        const firstEnd: ProviderStreamEvent = { type: 'tool-call-end', index: 0, toolCall: weather };
        const secondEnd: ProviderStreamEvent = { type: 'tool-call-end', index: 1, toolCall: time };
        const events = await run();
        expect(events.slice(0, -1)).toEqual(
          wire.toolCallsEnd === 'each' ? [...first, firstEnd, ...second, secondEnd] : [...first, ...second, firstEnd, secondEnd],
        );
        expect(endOf(events)).toEqual({
          type: 'message-end',
          message: {
            role: 'assistant',
            content: [weather, time],
            provider: harness.name,
            model: harness.model,
            usage: recorded.parallelToolCalls.usage,
            stop_reason: 'tool_use',
            raw_stop_reason: wire.rawStopReasons.toolUse,
          },
        });
      });

      const thinking = recorded.thinking;
      if (thinking) {
        it('streams thinking before the rest of the reply and keeps it in the message as the wire needs it back', async () => {
          replay(thinking.body);
          const events = await run();
          const whole = thinking.deltas.join('');
          expect(events.slice(0, thinking.deltas.length + 2)).toEqual([
            { type: 'thinking-start', index: 0 },
            ...thinking.deltas.map((delta) => ({ type: 'thinking-delta', index: 0, delta })),
            { type: 'thinking-end', index: 0, thinking: whole },
          ]);
          const end = endOf(events);
          expect(end).toMatchObject({
            type: 'message-end',
            message: { usage: thinking.usage, stop_reason: thinking.stopReason },
          });
          if (end?.type !== 'message-end') return;
          expect(end.message.content).toEqual(thinking.content);
          expect(end.message.content[0]).toMatchObject({ type: 'thinking', thinking: whole });
          if (wire.thinking === 'unsigned') expect(end.message.content[0]).toMatchObject({ signature: '' });
          else expect(end.message.content[0]).not.toMatchObject({ signature: '' });
        });
      }

      it('reports cache reads and cache writes apart from the uncached input', async () => {
        replay(recorded.cacheUsage.body);
        const end = endOf(await run());
        expect(end).toMatchObject({
          type: 'message-end',
          message: { content: [{ type: 'text', text: 'Cached and ready.' }] },
        });
        expect(end?.type === 'message-end' && end.message.usage).toEqual(recorded.cacheUsage.usage);
      });

      it('reports cache writes when the server reports them, the four counts disjoint', async () => {
        server.enqueue({ text: 'ok', usage: { input: 10, output: 2, cacheRead: 30, cacheWrite: 50 } });
        const end = endOf(await run());
        expect(end?.type === 'message-end' && end.message.usage).toEqual({
          input_tokens: 10,
          output_tokens: 2,
          cache_read_tokens: 30,
          cache_write_tokens: 50,
        });
      });

      it('stops with max_tokens when the output limit cut the reply short', async () => {
        replay(recorded.maxTokens.body);
        expect(endOf(await run())).toMatchObject({
          type: 'message-end',
          message: {
            content: recorded.maxTokens.content,
            stop_reason: 'max_tokens',
            raw_stop_reason: recorded.maxTokens.rawStopReason,
          },
        });
      });

      it('assembles one tool call after text, from the fake server', async () => {
        server.enqueue({
          text: 'Checking.',
          toolCalls: [{ id: 'call_1', name: 'read', input: { path: 'a.txt', lines: [1, 2] } }],
        });
        const input = { path: 'a.txt', lines: [1, 2] };
        const events = await run();
        expect(events.filter((event) => event.type.startsWith('tool-call'))).toEqual([
          { type: 'tool-call-start', index: 1, id: 'call_1', name: 'read' },
          ...['{"path":"a', '.txt","lin', 'es":[1,2]}'].map((delta) => ({ type: 'tool-call-delta', index: 1, delta })),
          { type: 'tool-call-end', index: 1, toolCall: { type: 'tool_call', id: 'call_1', name: 'read', input } },
        ]);
        expect(endOf(events)).toMatchObject({
          type: 'message-end',
          message: {
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool_call', id: 'call_1', name: 'read', input },
            ],
            stop_reason: 'tool_use',
            raw_stop_reason: wire.rawStopReasons.toolUse,
          },
        });
      });

      it('gives a tool call whose arguments are not valid JSON an empty input, and keeps the call', async () => {
        server.enqueue({ toolCalls: [{ id: 'call_bad', name: 'read', input: {}, arguments: '{"path": oops}' }] });
        expect(endOf(await run())).toMatchObject({
          type: 'message-end',
          message: {
            content: [{ type: 'tool_call', id: 'call_bad', name: 'read', input: {} }],
            stop_reason: 'tool_use',
          },
        });
      });

      it.each(wire.stopReasons)('normalises the wire stop reason %s to %s and keeps the raw value', async (raw, normalised) => {
        server.enqueue({ text: 'Done.', stopReason: raw });
        expect(endOf(await run())).toMatchObject({
          type: 'message-end',
          message: { stop_reason: normalised, raw_stop_reason: raw },
        });
      });
    });

    describe('failures', () => {
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
        server.enqueueRaw({
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: wire.malformedStream,
        });
        const events = await run();
        expect(events).toHaveLength(1);
        expect(endOf(events)).toMatchObject({
          type: 'error',
          error: { name: 'ProviderError', provider: harness.name, retryable: false },
        });
      });

      it('retries a 429 after the retry-after the server sent, then succeeds', async () => {
        server.enqueue({ status: 429, headers: { 'retry-after-ms': String(RETRY_AFTER_MS) } }, { text: 'Second time lucky.' });
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
        expect(server.requests).toHaveLength(2);
        expect(timers.scheduled(RETRY_AFTER_MS)).toBe(true);
        const [first, second] = server.requests;
        expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(RETRY_AFTER_MS - TIMER_SLACK_MS);
      });

      it.each([503, 529])('retries a %i too', async (status) => {
        server.enqueue({ status }, { text: 'ok' });
        expect(endOf(await run())).toMatchObject({
          type: 'message-end',
          message: { content: [{ type: 'text', text: 'ok' }] },
        });
        expect(server.requests).toHaveLength(2);
      });

      it('gives up after maxRetries and reports the 429 as a retryable ProviderError', async () => {
        server.enqueue({ status: 429 }, { status: 429 });
        const end = endOf(await run({ maxRetries: 1 }));
        expect(end?.type === 'error' && end.error).toBeInstanceOf(ProviderError);
        expect(end?.type === 'error' && end.error).toMatchObject({
          provider: harness.name,
          status: 429,
          type: wire.rateLimitType,
          retryable: true,
        });
        expect(server.requests).toHaveLength(2);
      });

      it('turns a 400 into a ProviderError with the status, the error type and the API message, without retrying', async () => {
        server.enqueue({ status: 400, errorBody: wire.badRequest.body });
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
        expect(server.requests).toHaveLength(1);
      });

      it('ends with a retryable error, never a message-end, when the connection drops mid-message', async () => {
        server.enqueue({ text: 'one two three four', dropAfterDeltas: 2 });
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
        server.enqueue({
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
        server.enqueue({
          toolCalls: [{ id: 'call_1', name: 'get_weather', input: { location: 'Paris' } }],
          endAfterDeltas: 2,
        });
        const events = await run();
        expect(events.some((event) => event.type === 'tool-call-end')).toBe(false);
        const end = endOf(events);
        expect(end?.type === 'error' && end.error).toMatchObject({ type: 'stream_dropped', retryable: true });
        expect(end?.type === 'error' && end.partial).toBeUndefined();
      });

      it('abandons a stream that goes silent for longer than timeoutMs', async () => {
        server.enqueue({ text: 'Hello there', hang: true });
        expect(endOf(await run({ timeoutMs: 1000 }))).toMatchObject({
          type: 'error',
          error: { name: 'ProviderError', type: 'idle_timeout', retryable: true },
          partial: { content: [{ type: 'text', text: 'Hello' }], stop_reason: 'error' },
        });
      });
    });

    describe('abort', () => {
      it('cancels a hanging stream when the signal aborts: an aborted end event keeps the text so far', async () => {
        server.enqueue({ text: 'Hello there world', hang: true });
        const controller = new AbortController();
        const events = await collect(provider().stream(request, { signal: controller.signal }), (event) => {
          if (event.type === 'text-delta') controller.abort();
        });
        const end = endOf(events);
        expect(end?.type).toBe('error');
        if (end?.type !== 'error') return;
        expect(end.error).toBeInstanceOf(AbortedError);
        expect(end.partial).toMatchObject({ content: [{ type: 'text', text: 'Hello' }], stop_reason: 'aborted' });
      });

      it('cancels a request still waiting for its response when the signal aborts', async () => {
        server.enqueue({ text: 'too late', delayMs: 60_000 });
        const controller = new AbortController();
        const running = run(undefined, controller.signal);
        await waitUntil(() => server.requests.length === 1, { message: 'the fake server received the request' });
        controller.abort();
        expect(endOf(await running)).toMatchObject({ type: 'error', error: expect.any(AbortedError) as unknown });
      });

      it("cancels while the SDK waits out a 429's retry-after, without a second request", async () => {
        const retryAfterMs = 30_000;
        server.enqueue({ status: 429, headers: { 'retry-after-ms': String(retryAfterMs) } }, { text: 'never asked for' });
        const controller = new AbortController();
        const timers = watchTimers();
        try {
          const running = run(undefined, controller.signal);
          await waitUntil(() => timers.scheduled(retryAfterMs), {
            message: `the SDK scheduled its ${retryAfterMs} ms retry-after backoff`,
          });
          controller.abort();
          expect(endOf(await running)).toMatchObject({ type: 'error', error: expect.any(AbortedError) as unknown });
        } finally {
          timers.restore();
        }
        expect(server.requests).toHaveLength(1);
      });

      it('sends nothing when the signal is already aborted', async () => {
        const controller = new AbortController();
        controller.abort();
        const events = await run(undefined, controller.signal);
        expect(events).toHaveLength(1);
        expect(endOf(events)).toMatchObject({ type: 'error', error: expect.any(AbortedError) as unknown });
        expect(server.requests).toHaveLength(0);
      });
    });

    describeRequestMapping(harness, () => server);
    describeAgentOverProvider(harness, () => server);
  });
}

/** Every event of a stream, in order; `onEvent` sees each as it arrives. */
async function collect(stream: AsyncIterable<ProviderEvent>, onEvent: (event: ProviderEvent) => void = () => {}): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent(event);
  }
  return events;
}

function endOf(events: ProviderEvent[]): ProviderEvent | undefined {
  return events[events.length - 1];
}

/**
 * Records the delays of the timers set while it is on (passing every call through), so a
 * case can see that the SDK's backoff sleep began, and for how long, instead of guessing
 * with a sleep of its own.
 */
function watchTimers(): { scheduled(ms: number): boolean; restore(): void } {
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
