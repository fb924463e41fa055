import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError, ProviderError } from '../errors.js';
import type { ProviderEvent, ProviderRequest } from '../provider.js';
import { FakeLLMServer } from '../testing/index.js';
import { OpenAIChatProvider, type OpenAIChatOptions } from './openai-chat.js';

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

describe('OpenAIChatProvider', () => {
  let server: FakeLLMServer;
  const provider = (options: Partial<OpenAIChatOptions> = {}): OpenAIChatProvider =>
    new OpenAIChatProvider({ model: 'gpt-test', apiKey: 'test-key', baseURL: server.openaiBaseURL, ...options });
  const replay = (name: string): void =>
    server.enqueueRaw({ status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, body: fixture(name) });

  beforeEach(async () => {
    server = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('streams text deltas as they arrive, then commits one message with usage and the real stop reason', async () => {
    replay('openai-text.sse');
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
          provider: 'openai',
          model: 'gpt-test',
          usage: { input_tokens: 19, output_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 0 },
          stop_reason: 'end_turn',
          raw_stop_reason: 'stop',
        },
      },
    ]);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { stream: true, stream_options: { include_usage: true } } });
  });

  it('assembles several tool calls from argument pieces keyed by their index', async () => {
    replay('openai-tool-calls.sse');
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events.filter((event) => event.type !== 'message-end')).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, delta: '{"lo' },
      { type: 'tool-call-delta', index: 0, delta: 'cation": "Pa' },
      { type: 'tool-call-delta', index: 0, delta: 'ris"}' },
      { type: 'tool-call-start', index: 1, id: 'call_ABtI2x3qNvP0f7sRuQw8Lk9m', name: 'get_time' },
      { type: 'tool-call-delta', index: 1, delta: '{"timezone"' },
      { type: 'tool-call-delta', index: 1, delta: ': "Europe/Paris"}' },
      { type: 'tool-call-end', index: 0, toolCall: { type: 'tool_call', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: { location: 'Paris' } } },
      { type: 'tool-call-end', index: 1, toolCall: { type: 'tool_call', id: 'call_ABtI2x3qNvP0f7sRuQw8Lk9m', name: 'get_time', input: { timezone: 'Europe/Paris' } } },
    ]);
    expect(endOf(events)).toMatchObject({
      type: 'message-end',
      message: {
        content: [
          { type: 'tool_call', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_call', id: 'call_ABtI2x3qNvP0f7sRuQw8Lk9m', name: 'get_time', input: { timezone: 'Europe/Paris' } },
        ],
        usage: { input_tokens: 82, output_tokens: 41, cache_read_tokens: 0, cache_write_tokens: 0 },
        stop_reason: 'tool_use',
        raw_stop_reason: 'tool_calls',
      },
    });
  });

  it('assembles one tool call after text, from the fake server', async () => {
    server.enqueue({ text: 'Checking.', toolCalls: [{ id: 'call_1', name: 'read', input: { path: 'a.txt', lines: [1, 2] } }] });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({
      type: 'message-end',
      message: {
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_call', id: 'call_1', name: 'read', input: { path: 'a.txt', lines: [1, 2] } },
        ],
        stop_reason: 'tool_use',
      },
    });
  });

  it('counts cached prompt tokens as cache reads and leaves them out of input_tokens', async () => {
    replay('openai-cached-usage.sse');
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end?.type === 'message-end' && end.message.usage).toEqual({
      input_tokens: 86,
      output_tokens: 9,
      cache_read_tokens: 1920,
      cache_write_tokens: 0,
    });
  });

  it('reports cache writes when the server reports cache_write_tokens', async () => {
    server.enqueue({ text: 'ok', usage: { input: 10, output: 2, cacheRead: 30, cacheWrite: 50 } });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end?.type === 'message-end' && end.message.usage).toEqual({ input_tokens: 10, output_tokens: 2, cache_read_tokens: 30, cache_write_tokens: 50 });
  });

  it('stops with max_tokens on finish_reason length', async () => {
    replay('openai-length.sse');
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({ type: 'message-end', message: { content: [{ type: 'text', text: 'The first three words' }], stop_reason: 'max_tokens', raw_stop_reason: 'length' } });
  });

  it('keeps a streamed refusal as text and stops with refusal', async () => {
    replay('openai-refusal.sse');
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({
      type: 'message-end',
      message: { content: [{ type: 'text', text: "I'm sorry, I can't help with that." }], stop_reason: 'refusal', raw_stop_reason: 'stop' },
    });
  });

  it('stops with refusal on finish_reason content_filter', async () => {
    replay('openai-content-filter.sse');
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({ type: 'message-end', message: { stop_reason: 'refusal', raw_stop_reason: 'content_filter' } });
  });

  it('streams reasoning_content of a compatible server as thinking, kept with an empty signature, and reads usage from a choices-null chunk', async () => {
    replay('openai-compatible-reasoning.sse');
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events.slice(0, 4)).toEqual([
      { type: 'thinking-start', index: 0 },
      { type: 'thinking-delta', index: 0, delta: 'The user greets me.' },
      { type: 'thinking-delta', index: 0, delta: ' Reply briefly.' },
      { type: 'thinking-end', index: 0, thinking: 'The user greets me. Reply briefly.' },
    ]);
    expect(endOf(events)).toMatchObject({
      type: 'message-end',
      message: {
        content: [
          { type: 'thinking', thinking: 'The user greets me. Reply briefly.', signature: '' },
          { type: 'text', text: 'Hi there!' },
        ],
        usage: { input_tokens: 14, output_tokens: 21, cache_read_tokens: 0, cache_write_tokens: 0 },
        stop_reason: 'end_turn',
      },
    });
  });

  it('gives a tool call whose arguments are not valid JSON an empty input', async () => {
    const chunk = (delta: unknown, finish: string | null = null): string =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    server.enqueueRaw({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body:
        chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_bad', type: 'function', function: { name: 'read', arguments: '{"path": ' } }] }) +
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'oops}' } }] }) +
        chunk({}, 'tool_calls') +
        'data: [DONE]\n\n',
    });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({ type: 'message-end', message: { content: [{ type: 'tool_call', id: 'call_bad', name: 'read', input: {} }], stop_reason: 'tool_use' } });
  });

  it.each([
    ['stop', 'end_turn'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
  ] as const)('normalises the finish_reason %s to %s and keeps the raw value', async (raw, normalised) => {
    server.enqueue({ text: 'Done.', stopReason: raw });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({ type: 'message-end', message: { stop_reason: normalised, raw_stop_reason: raw } });
  });

  it('calls a message with tool calls tool_use even when a compatible server says stop', async () => {
    server.enqueue({ toolCalls: [{ name: 'clock', input: {} }], stopReason: 'stop' });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({ type: 'message-end', message: { stop_reason: 'tool_use', raw_stop_reason: 'stop' } });
  });

  it('ends with an error event carrying a retryable ProviderError and only the text so far when an error chunk arrives mid-stream', async () => {
    replay('openai-error-midstream.sse');
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events.some((event) => event.type === 'message-end')).toBe(false);
    const end = endOf(events);
    expect(end?.type).toBe('error');
    if (end?.type !== 'error') return;
    expect(end.error).toBeInstanceOf(ProviderError);
    expect(end.error).toMatchObject({ provider: 'openai', type: 'server_error', status: undefined, retryable: true });
    expect(end.error.message).toContain('The server had an error while processing your request.');
    expect(end.partial).toMatchObject({ content: [{ type: 'text', text: 'The answer begins here' }], stop_reason: 'error' });
  });

  it('retries a 429 with the SDK and then succeeds', async () => {
    server.enqueue({ status: 429 }, { text: 'Second time lucky.' });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end).toMatchObject({ type: 'message-end', message: { content: [{ type: 'text', text: 'Second time lucky.' }] } });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 503 too', async () => {
    server.enqueue({ status: 503 }, { text: 'ok' });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end?.type).toBe('message-end');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after maxRetries and reports the 429 as a retryable ProviderError', async () => {
    server.enqueue({ status: 429 }, { status: 429 });
    const end = endOf(await collect(provider({ maxRetries: 1 }).stream(request, { signal: new AbortController().signal })));
    expect(end?.type === 'error' && end.error).toMatchObject({ name: 'ProviderError', status: 429, type: 'rate_limit_exceeded', retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  it('does not call a 429 for an exhausted quota retryable', async () => {
    server.enqueue({
      status: 429,
      headers: { 'x-should-retry': 'false' },
      errorBody: { error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } },
    });
    const end = endOf(await collect(provider().stream(request, { signal: new AbortController().signal })));
    expect(end?.type === 'error' && end.error).toMatchObject({ status: 429, type: 'insufficient_quota', retryable: false });
  });

  it('turns a 400 into a ProviderError with the status, the error type and the API message, without retrying', async () => {
    server.enqueue({
      status: 400,
      errorBody: {
        error: {
          message: "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40.",
          type: 'invalid_request_error',
          param: 'messages[1].tool_calls[0].id',
          code: 'string_above_max_length',
        },
      },
    });
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events).toHaveLength(1);
    const end = endOf(events);
    expect(end?.type === 'error' && end.error).toBeInstanceOf(ProviderError);
    expect(end?.type === 'error' && end.error).toMatchObject({ status: 400, type: 'invalid_request_error', retryable: false });
    expect(end?.type === 'error' && end.error.message).toContain("Invalid 'messages[1].tool_calls[0].id': string too long.");
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

  it('cancels while the SDK waits to retry a 429 (its backoff sleep does not watch the signal)', async () => {
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

  it('ends with a retryable error when the stream closes cleanly before any finish_reason', async () => {
    const body = fixture('openai-tool-calls.sse');
    const cut = body.split('\n\n').slice(0, 4).join('\n\n') + '\n\n';
    server.enqueueRaw({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: cut });
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    const end = endOf(events);
    expect(end?.type === 'error' && end.error).toMatchObject({ type: 'stream_dropped', retryable: true });
    expect(end?.type === 'error' && end.partial).toBeUndefined();
    expect(events.some((event) => event.type === 'tool-call-end')).toBe(false);
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
    server.enqueueRaw({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'data: {not json\n\n' });
    const events = await collect(provider().stream(request, { signal: new AbortController().signal }));
    expect(events).toHaveLength(1);
    expect(endOf(events)?.type === 'error' && (endOf(events) as { error: Error }).error).toBeInstanceOf(ProviderError);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
