import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError, ProviderError } from '../errors.js';
import type { ProviderEvent, ProviderRequest } from '../provider.js';
import { FakeLLMServer } from '../testing/index.js';
import { AnthropicMessagesProvider, type AnthropicMessagesOptions } from './anthropic-messages.js';

const request: ProviderRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [] };

function fixture(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
}

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

describe('AnthropicMessagesProvider', () => {
  let server: FakeLLMServer;
  const provider = (options: Partial<AnthropicMessagesOptions> = {}): AnthropicMessagesProvider =>
    new AnthropicMessagesProvider({ model: 'claude-test', apiKey: 'test-key', baseURL: server.anthropicBaseURL, ...options });
  const replay = (name: string): void =>
    server.enqueueRaw({ status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, body: fixture(name) });

  beforeEach(async () => {
    server = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('streams text deltas as they arrive, then commits one message with usage and the real stop reason', async () => {
    replay('anthropic-text.sse');
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events).toEqual([
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
          provider: 'anthropic',
          model: 'claude-test',
          // input from message_start, output from message_delta (which carried only output_tokens)
          usage: { input_tokens: 25, output_tokens: 15, cache_read_tokens: 0, cache_write_tokens: 0 },
          stop_reason: 'end_turn',
          raw_stop_reason: 'end_turn',
        },
      },
    ]);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/messages' });
  });

  it('assembles a tool call from its input_json_delta pieces, after the text before it', async () => {
    replay('anthropic-tool-use.sse');
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events.filter((event) => event.type.startsWith('tool-call'))).toEqual([
      { type: 'tool-call-start', index: 1, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather' },
      { type: 'tool-call-delta', index: 1, delta: '{"location":' },
      { type: 'tool-call-delta', index: 1, delta: '"San Fra' },
      { type: 'tool-call-delta', index: 1, delta: 'ncisco, CA"' },
      { type: 'tool-call-delta', index: 1, delta: ', "unit": "fah' },
      { type: 'tool-call-delta', index: 1, delta: 'renheit"}' },
      {
        type: 'tool-call-end',
        index: 1,
        toolCall: { type: 'tool_call', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', input: { location: 'San Francisco, CA', unit: 'fahrenheit' } },
      },
    ]);
    const end = endOf(events);
    expect(end?.type).toBe('message-end');
    if (end?.type !== 'message-end') return;
    expect(end.message.content).toEqual([
      { type: 'text', text: 'Okay, let me check the weather in San Francisco.' },
      { type: 'tool_call', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', input: { location: 'San Francisco, CA', unit: 'fahrenheit' } },
    ]);
    expect(end.message.stop_reason).toBe('tool_use');
    expect(end.message.usage).toEqual({ input_tokens: 472, output_tokens: 89, cache_read_tokens: 0, cache_write_tokens: 0 });
  });

  it('assembles several tool calls, each from its own block', async () => {
    replay('anthropic-parallel-tools.sse');
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({
      type: 'message-end',
      message: {
        content: [
          { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_call', id: 'toolu_01B8r7kLm2NqPz3sT4uV5wX6', name: 'get_time', input: { timezone: 'Europe/Paris' } },
        ],
        stop_reason: 'tool_use',
      },
    });
  });

  it('keeps thinking with its signature and redacted thinking verbatim, in wire order', async () => {
    replay('anthropic-thinking.sse');
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events.slice(0, 4)).toEqual([
      { type: 'thinking-start', index: 0 },
      { type: 'thinking-delta', index: 0, delta: 'The user wants 27 * 453.' },
      { type: 'thinking-delta', index: 0, delta: ' I should use the calculator.' },
      { type: 'thinking-end', index: 0, thinking: 'The user wants 27 * 453. I should use the calculator.' },
    ]);
    const end = endOf(events);
    expect(end?.type === 'message-end' && end.message.content).toEqual([
      { type: 'thinking', thinking: 'The user wants 27 * 453. I should use the calculator.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds==' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB0URUqHvTZhKc1Lk==' },
      { type: 'text', text: "I'll work that out with the calculator." },
      { type: 'tool_call', id: 'toolu_01Cq7Vx5Yz8Ab2Cd4Ef6Gh8I', name: 'calculator', input: { expression: '27 * 453' } },
    ]);
  });

  it('reports cache read and cache write tokens apart from the uncached input', async () => {
    replay('anthropic-cache-usage.sse');
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end?.type === 'message-end' && end.message.usage).toEqual({
      input_tokens: 21,
      output_tokens: 9,
      cache_read_tokens: 1830,
      cache_write_tokens: 188,
    });
  });

  it('stops with max_tokens and gives a tool call whose arguments were cut short an empty input', async () => {
    replay('anthropic-max-tokens.sse');
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({
      type: 'message-end',
      message: {
        content: [
          { type: 'text', text: 'Let me write that file.' },
          { type: 'tool_call', id: 'toolu_01Wr1t3F1l3AbCdEfGhIjKlM', name: 'write_file', input: {} },
        ],
        stop_reason: 'max_tokens',
        raw_stop_reason: 'max_tokens',
      },
    });
  });

  it.each([
    ['end_turn', 'end_turn'],
    ['tool_use', 'tool_use'],
    ['max_tokens', 'max_tokens'],
    ['stop_sequence', 'stop_sequence'],
    ['refusal', 'refusal'],
    ['pause_turn', 'end_turn'],
    ['model_context_window_exceeded', 'max_tokens'],
  ] as const)('normalises the wire stop reason %s to %s and keeps the raw value', async (raw, normalised) => {
    server.enqueue({ text: 'Done.', stopReason: raw });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({ type: 'message-end', message: { stop_reason: normalised, raw_stop_reason: raw } });
  });

  it('ends with an error event carrying a retryable ProviderError and only the text so far when an error event arrives mid-stream', async () => {
    replay('anthropic-error-midstream.sse');
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events.some((event) => event.type === 'message-end')).toBe(false);
    const end = endOf(events);
    expect(end?.type).toBe('error');
    if (end?.type !== 'error') return;
    expect(end.error).toBeInstanceOf(ProviderError);
    expect(end.error).toMatchObject({ provider: 'anthropic', type: 'overloaded_error', status: undefined, retryable: true });
    expect(end.error.message).toContain('Overloaded');
    expect(end.partial).toMatchObject({
      content: [{ type: 'text', text: 'The answer begins here' }],
      stop_reason: 'error',
      error_message: end.error.message,
    });
  });

  it('retries a 429 with the SDK and then succeeds', async () => {
    server.enqueue({ status: 429 }, { text: 'Second time lucky.' });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({ type: 'message-end', message: { content: [{ type: 'text', text: 'Second time lucky.' }] } });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 529 overloaded response too', async () => {
    server.enqueue({ status: 529 }, { text: 'ok' });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end?.type).toBe('message-end');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after maxRetries and reports the 429 as a retryable ProviderError', async () => {
    server.enqueue({ status: 429 }, { status: 429 });
    const end = endOf(await collect(provider({ maxRetries: 1 }).stream(request, { signal: new AbortController().signal })));
    expect(end?.type === 'error' && end.error).toMatchObject({ name: 'ProviderError', status: 429, type: 'rate_limit_error', retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  it('turns a 400 into a ProviderError with the status, the error type and the API message, without retrying', async () => {
    server.enqueue({
      status: 400,
      errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: 100000 > 64000, which is the maximum allowed' } },
    });
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events).toHaveLength(1);
    const end = endOf(events);
    expect(end?.type === 'error' && end.error).toBeInstanceOf(ProviderError);
    expect(end?.type === 'error' && end.error).toMatchObject({ status: 400, type: 'invalid_request_error', retryable: false });
    expect(end?.type === 'error' && end.error.message).toContain('max_tokens: 100000 > 64000, which is the maximum allowed');
    expect(server.requests).toHaveLength(1);
  });

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
    const run = collect(provider().stream(request, { signal: controller.signal }));
    await waitFor(() => server.requests.length === 1);
    controller.abort();
    const end = endOf(await run);
    expect(end?.type === 'error' && end.error).toBeInstanceOf(AbortedError);
  });

  it('cancels while the SDK waits to retry a 429', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after-ms': '60000' } }, { text: 'never asked for' });
    const controller = new AbortController();
    const run = collect(provider().stream(request, { signal: controller.signal }));
    await waitFor(() => server.requests.length === 1);
    // Give the client time to read the 429 and start its backoff (loopback: well under this).
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    const end = endOf(await run);
    expect(end?.type === 'error' && end.error).toBeInstanceOf(AbortedError);
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(provider().stream(request, { signal: controller.signal }));
    expect(events).toHaveLength(1);
    expect(endOf(events)?.type === 'error' && (endOf(events) as { error: Error }).error).toBeInstanceOf(AbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it('ends with a retryable error, never a message-end, when the connection drops mid-message', async () => {
    server.enqueue({ text: 'one two three four', dropAfterDeltas: 2 });
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events.some((event) => event.type === 'message-end')).toBe(false);
    const end = endOf(events);
    expect(end?.type === 'error' && end.error).toMatchObject({ name: 'ProviderError', type: 'stream_dropped', retryable: true });
    expect(end?.type === 'error' && end.partial).toMatchObject({ content: [{ type: 'text', text: 'one two' }], stop_reason: 'error' });
  });

  it('ends with a retryable error when the stream closes cleanly before message_stop', async () => {
    const body = fixture('anthropic-tool-use.sse');
    server.enqueueRaw({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: body.slice(0, body.indexOf('event: content_block_stop\ndata: {"type":"content_block_stop","index":1}')) });
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    const end = endOf(events);
    expect(end?.type === 'error' && end.error).toMatchObject({ type: 'stream_dropped', retryable: true });
    // The half-formed tool call is neither committed nor offered as partial.
    expect(end?.type === 'error' && end.partial?.content).toEqual([{ type: 'text', text: 'Okay, let me check the weather in San Francisco.' }]);
  });

  it('abandons a stream that goes silent for longer than timeoutMs', async () => {
    server.enqueue({ text: 'Hello there', hang: true });
    const events = await collect(provider({ timeoutMs: 1000 }).stream(request, { signal: new AbortController().signal }));
    expect(endOf(events)?.type === 'error' && (endOf(events) as { error: Error }).error).toMatchObject({
      name: 'ProviderError',
      type: 'idle_timeout',
      retryable: true,
    });
  });

  it('reports a malformed stream as an error event instead of throwing', async () => {
    server.enqueueRaw({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'event: message_start\ndata: {not json\n\n' });
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events).toHaveLength(1);
    expect(endOf(events)?.type === 'error' && (endOf(events) as { error: Error }).error).toBeInstanceOf(ProviderError);
  });

  it('rejects a thinking budget that leaves no room below maxTokens', () => {
    expect(() => provider({ thinking: { budgetTokens: 4096 }, maxTokens: 4096 })).toThrow(/budgetTokens/);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
