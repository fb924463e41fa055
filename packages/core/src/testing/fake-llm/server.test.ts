import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeLLMServer } from './server.js';
import { waitUntil } from '../wait-until.js';

describe('FakeLLMServer', () => {
  let server: FakeLLMServer;
  beforeEach(async () => {
    server = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test': 'yes' },
      body: JSON.stringify(body),
    });

  it('listens on 127.0.0.1 and gives each SDK its base URL', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.anthropicBaseURL).toBe(server.url);
    expect(server.openaiBaseURL).toBe(`${server.url}/v1`);
  });

  it('answers 500 with a body saying the queue is empty, and tells the SDKs not to retry', async () => {
    const response = await post('/v1/messages', { model: 'm' });
    expect(response.status).toBe(500);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await response.text()).toContain('the reply queue is empty');
  });

  it('records every request: method, path, headers, parsed body and raw body', async () => {
    server.enqueue({ text: 'hi' });
    await (await post('/v1/chat/completions', { model: 'gpt', messages: [] })).text();
    expect(server.requests).toEqual([
      {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: expect.objectContaining({ 'x-test': 'yes' }) as unknown,
        body: { model: 'gpt', messages: [] },
        rawBody: '{"model":"gpt","messages":[]}',
        receivedAt: expect.any(Number) as unknown,
      },
    ]);
  });

  it('stamps each request with when it arrived, so a test can see how long a client waited', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' });
    await (await post('/v1/messages', {})).text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await (await post('/v1/messages', {})).text();
    const [first, second] = server.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(19);
  });

  it('sends a raw reply byte for byte', async () => {
    const body = 'event: ping\ndata: {"type": "ping"}\n\n\u00e9';
    server.enqueueRaw({ status: 201, headers: { 'content-type': 'text/plain', 'x-raw': '1' }, body });
    const response = await post('/v1/messages', {});
    expect(response.status).toBe(201);
    expect(response.headers.get('x-raw')).toBe('1');
    expect(await response.text()).toBe(body);
  });

  it('answers in the protocol of the path that asks, whichever reply is next', async () => {
    server.enqueue({ text: 'one' }, { text: 'two' });
    const anthropic = await (await post('/v1/messages', { model: 'claude-x' })).text();
    const openai = await (await post('/v1/chat/completions', { model: 'gpt-x' })).text();
    expect(anthropic).toContain('event: message_start');
    expect(anthropic).toContain('"model":"claude-x"');
    expect(anthropic).toContain('"text_delta","text":"one"');
    expect(anthropic.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect(openai).toContain('"object":"chat.completion.chunk"');
    expect(openai).toContain('"delta":{"content":"two"}');
    expect(openai.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('sends the OpenAI usage chunk only when the request asks for it', async () => {
    server.enqueue({ text: 'a', usage: { input: 3, output: 1 } }, { text: 'b', usage: { input: 3, output: 1 } });
    const without = await (await post('/v1/chat/completions', { model: 'm' })).text();
    const withUsage = await (await post('/v1/chat/completions', { model: 'm', stream_options: { include_usage: true } })).text();
    expect(without).not.toContain('prompt_tokens');
    expect(withUsage).toContain('"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4');
  });

  it('sends an error status with a protocol-shaped body and instant-retry headers', async () => {
    server.enqueue({ status: 429 }, { status: 400, errorBody: { custom: true } });
    const limited = await post('/v1/messages', {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after-ms')).toBe('1');
    expect(await limited.json()).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'fake 429 error' },
    });
    const bad = await post('/v1/chat/completions', {});
    expect(bad.status).toBe(400);
    expect(bad.headers.get('retry-after-ms')).toBeNull();
    expect(await bad.json()).toEqual({ custom: true });
  });

  it('sends an error event after the given number of deltas and ends the stream', async () => {
    server.enqueue(
      { text: 'one two three', errorEvent: { afterDeltas: 2, type: 'overloaded_error', message: 'Overloaded' } },
      { text: 'one two three', errorEvent: { afterDeltas: 1 } },
    );
    const anthropic = await (await post('/v1/messages', {})).text();
    expect(anthropic).toContain('"text":" two"');
    expect(anthropic).not.toContain('"text":" three"');
    expect(anthropic.endsWith('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n')).toBe(true);
    const openai = await (await post('/v1/chat/completions', {})).text();
    expect(openai).not.toContain('" two"');
    expect(openai).toMatch(/data: \{"error":\{"message":"[^"]+","type":"server_error","param":null,"code":null\}\}\n\n$/);
  });

  it('ends the stream cleanly after the given number of deltas, without the completion marker', async () => {
    server.enqueue({ text: 'one two three', endAfterDeltas: 2 }, { text: 'one two three', endAfterDeltas: 2 });
    const anthropic = await (await post('/v1/messages', {})).text();
    expect(anthropic).toContain('"text":" two"');
    expect(anthropic).not.toContain('"text":" three"');
    expect(anthropic).not.toContain('message_stop');
    const openai = await (await post('/v1/chat/completions', {})).text();
    expect(openai).toContain('" two"');
    expect(openai).not.toContain('finish_reason":"');
    expect(openai).not.toContain('[DONE]');
  });

  it('streams tool-call arguments exactly as given when they are not the JSON of the input', async () => {
    const call = { id: 'c1', name: 'read', input: {}, arguments: '{"path": oops' };
    server.enqueue({ toolCalls: [call] }, { toolCalls: [call] });
    /** The JSON of every `data:` line of an SSE body. */
    const dataOf = (body: string): unknown[] => body.split('\n').flatMap((line) => (line.startsWith('data: {') ? [JSON.parse(line.slice(6)) as unknown] : []));
    const anthropicArguments = (body: string): string =>
      dataOf(body)
        .map((event) => (event as { delta?: { partial_json?: string } }).delta?.partial_json ?? '')
        .join('');
    const openaiArguments = (body: string): string =>
      dataOf(body)
        .map(
          (chunk) =>
            (chunk as { choices?: { delta?: { tool_calls?: { function?: { arguments?: string } }[] } }[] }).choices?.[0]?.delta?.tool_calls?.[0]?.function
              ?.arguments ?? '',
        )
        .join('');
    expect(anthropicArguments(await (await post('/v1/messages', {})).text())).toBe('{"path": oops');
    expect(openaiArguments(await (await post('/v1/chat/completions', {})).text())).toBe('{"path": oops');
  });

  it('pauses after the given number of deltas until resume(), then sends the whole rest of the stream', async () => {
    server.enqueue({ text: 'one two three', pauseAfterDeltas: 1 });
    const response = await post('/v1/messages', {});
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('"text":"one"')) received += new TextDecoder().decode((await reader.read()).value);
    await waitUntil(() => server.paused === 1, { message: 'the reply paused' });
    expect(received).not.toContain('" two"');
    server.resume();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) received += new TextDecoder().decode(chunk.value);
    expect(received).toContain('"text":" two"');
    expect(received).toContain('"text":" three"');
    expect(received).toContain('message_stop');
    expect(server.paused).toBe(0);
  });

  it('releases a held (hanging) response when the server closes', async () => {
    server.enqueue({ text: 'never finishes', hang: true });
    const response = await post('/v1/messages', {});
    const reading = response.text().then(
      () => 'ended',
      () => 'failed',
    );
    await server.close();
    expect(['ended', 'failed']).toContain(await reading);
    server = await FakeLLMServer.start();
  });
});
