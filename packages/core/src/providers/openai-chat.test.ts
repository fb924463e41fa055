import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderEvent } from './provider.js';
import { describeProviderConformance } from '../testing/conformance/index.js';
import { FakeLLMServer, usage } from '../testing/index.js';
import { OpenAIChatProvider, type OpenAIChatOptions } from './openai-chat.js';

function fixture(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
}

/** How the compaction `We fixed the parser.` goes out: framed so the model reads it as notes. */
const COMPACTED = '[Summary of the earlier conversation, which was compacted to save context. Continue from it.]\n\nWe fixed the parser.';

const clock = {
  type: 'function',
  function: {
    name: 'clock',
    description: 'The current time',
    parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
  },
};

/** Chat Completions bodies: usage is always asked for; no max tokens unless set. */
const body = (messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'gpt-test',
  messages,
  ...extra,
  stream: true,
  stream_options: { include_usage: true },
});
const call = (id: string, name: string, args: string) => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

/** The body after resuming the conformance suite's two-turn clock session: its reasoning is not sent back. */
const resumed = {
  model: 'gpt-test',
  messages: [
    { role: 'system', content: 'You are a clock.' },
    { role: 'user', content: 'What time is it in UTC?' },
    {
      role: 'assistant',
      content: 'Let me check the clock.',
      tool_calls: [call('call_Clock01', 'clock', '{"zone":"UTC"}')],
    },
    { role: 'tool', tool_call_id: 'call_Clock01', content: '12:00 in UTC' },
    { role: 'assistant', content: 'It is 12:00 in UTC.' },
    { role: 'user', content: 'Thanks!' },
    { role: 'assistant', content: 'You are welcome.' },
    { role: 'user', content: 'One more: Tokyo?' },
  ],
  tools: [clock],
  stream: true,
  stream_options: { include_usage: true },
};

describeProviderConformance('OpenAIChatProvider', {
  name: 'openai',
  model: 'gpt-test',
  server: FakeLLMServer,
  create: (server, options = {}) => new OpenAIChatProvider({ model: 'gpt-test', apiKey: 'test-key', baseURL: server.openaiBaseURL, ...options }),
  wire: {
    path: '/v1/chat/completions',
    streaming: { stream: true, stream_options: { include_usage: true } },
    streamContentType: 'text/event-stream; charset=utf-8',
    retryAfter: { headers: (ms) => ({ 'retry-after-ms': String(ms) }), delay: (ms) => [ms, ms] },
    rawStopReasons: { endTurn: 'stop', toolUse: 'tool_calls' },
    stopReasons: [
      ['stop', 'end_turn'],
      ['tool_calls', 'tool_use'],
      ['function_call', 'tool_use'],
      ['length', 'max_tokens'],
      ['content_filter', 'refusal'],
    ],
    toolCallsEnd: 'finish',
    thinking: 'unsigned',
    serverErrors: [503, 529],
    rateLimitType: 'rate_limit_exceeded',
    badRequest: {
      body: {
        error: {
          message: "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40.",
          type: 'invalid_request_error',
          param: 'messages[1].tool_calls[0].id',
          code: 'string_above_max_length',
        },
      },
      type: 'invalid_request_error',
      message: "Invalid 'messages[1].tool_calls[0].id': string too long.",
    },
    malformedStream: 'data: {not json\n\n',
    toolCallIds: (sent) => {
      const messages = (sent as { messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[] }).messages;
      return {
        calls: messages.flatMap((message) => (message.tool_calls ?? []).map((toolCall) => toolCall.id)),
        results: messages.flatMap((message) => (message.role === 'tool' && message.tool_call_id !== undefined ? [message.tool_call_id] : [])),
      };
    },
    acceptsToolCallId: (id) => /^[\x21-\x7e]+$/.test(id) && id.length <= 40,
  },
  recorded: {
    text: { body: fixture('openai-text.sse'), usage: usage(19, 10) },
    toolCall: { body: fixture('openai-tool-call.sse'), id: 'call_Wx7kP2mQ9rLs4TnV8bYc1DfG', usage: usage(310, 44) },
    parallelToolCalls: {
      body: fixture('openai-tool-calls.sse'),
      ids: ['call_DdmO9pD3xa9XTPNJ32zg2hcA', 'call_ABtI2x3qNvP0f7sRuQw8Lk9m'],
      usage: usage(82, 41),
    },
    // reasoning_content of a compatible server (vLLM), and a usage chunk with `choices: null`.
    thinking: {
      body: fixture('openai-compatible-reasoning.sse'),
      deltas: ['The user greets me.', ' Reply briefly.'],
      content: [
        { type: 'thinking', thinking: 'The user greets me. Reply briefly.', signature: '' },
        { type: 'text', text: 'Hi there!' },
      ],
      usage: usage(14, 21),
      stopReason: 'end_turn',
    },
    // prompt_tokens includes the cached tokens; input_tokens leaves them out.
    cacheUsage: { body: fixture('openai-cached-usage.sse'), usage: usage(86, 9, 1920, 0) },
    maxTokens: {
      body: fixture('openai-length.sse'),
      content: [{ type: 'text', text: 'The first three words' }],
      rawStopReason: 'length',
    },
    errorMidStream: {
      body: fixture('openai-error-midstream.sse'),
      type: 'server_error',
      message: 'The server had an error while processing your request.',
    },
  },
  requests: {
    basic: body(
      [
        { role: 'system', content: 'You are terse.\n\nPrefer tables.' },
        { role: 'user', content: 'What time is it?' },
      ],
      { tools: [clock], max_completion_tokens: 1024, temperature: 0.5 },
    ),
    // One tool message per result; the wire has no error flag, so the content says it.
    toolResults: body([
      { role: 'user', content: 'Read a, b and c' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [call('call_a', 'read', '{"path":"a","lines":[1,2]}'), call('call_b', 'read', '{"path":"b"}'), call('call_c', 'read', '{}')],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'contents of a' },
      { role: 'tool', tool_call_id: 'call_b', content: '[tool error] ENOENT: no such file' },
      { role: 'tool', tool_call_id: 'call_c', content: '' },
    ]),
    promptAfterToolResults: body([
      { role: 'user', content: 'Run it' },
      { role: 'assistant', content: null, tool_calls: [call('call_bash', 'bash', '{"command":"sleep 100"}')] },
      {
        role: 'tool',
        tool_call_id: 'call_bash',
        content: '[tool error] Tool call aborted: the step was cancelled before this tool finished.',
      },
      { role: 'user', content: 'Never mind.' },
    ]),
    compaction: body([
      { role: 'system', content: 'sys' },
      { role: 'user', content: `${COMPACTED}\n\nWhat next?` },
    ]),
    alternation: body([
      { role: 'user', content: 'First.\n\nSecond.' },
      { role: 'assistant', content: 'Partial answ\n\nA full answer.' },
      { role: 'user', content: 'Third.' },
    ]),
    // Thinking of both kinds dropped (a message with nothing else skipped), the over-long id
    // fitted to 40 characters, the empty replies skipped.
    foreignSession: body([
      { role: 'user', content: 'Weather and time in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('call_DdmO9pD3xa9XTPNJ32zg2hcA', 'get_weather', '{"location":"Paris"}'), call('functions.get_time:1', 'get_time', '{}')],
      },
      { role: 'tool', tool_call_id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', content: '18°C' },
      { role: 'tool', tool_call_id: 'functions.get_time:1', content: '14:00' },
      { role: 'assistant', content: 'It is 18°C at 14:00.' },
      { role: 'user', content: '27 * 453?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          call('toolu_01A09q90qw90lq917835lq9', 'calculator', '{"expression":"27 * 453"}'),
          call('toolu_01VeryLongIdentifierFromS_12b6a631', 'calculator', '{"expression":"1 + 1"}'),
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '12231' },
      { role: 'tool', tool_call_id: 'toolu_01VeryLongIdentifierFromS_12b6a631', content: '2' },
      { role: 'user', content: 'And tomorrow?\n\nHello?' },
    ]),
  },
  agent: {
    resumed,
    toolLoop: { messages: resumed.messages.slice(0, 4) },
  },
});

describe('OpenAIChatProvider', () => {
  let server: FakeLLMServer;
  const provider = (options: Partial<OpenAIChatOptions> = {}): OpenAIChatProvider =>
    new OpenAIChatProvider({ model: 'gpt-test', apiKey: 'test-key', baseURL: server.openaiBaseURL, ...options });
  const replay = (name: string): void =>
    server.enqueueRaw({
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      body: fixture(name),
    });
  const end = async (): Promise<ProviderEvent | undefined> => {
    let last: ProviderEvent | undefined;
    for await (const event of provider().stream({ messages: [{ role: 'user', content: 'hi' }], tools: [] }, { signal: new AbortController().signal })) {
      last = event;
    }
    return last;
  };

  beforeEach(async () => {
    server = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('keeps a streamed refusal as text and stops with refusal', async () => {
    replay('openai-refusal.sse');
    expect(await end()).toMatchObject({
      type: 'message-end',
      message: {
        content: [{ type: 'text', text: "I'm sorry, I can't help with that." }],
        stop_reason: 'refusal',
        raw_stop_reason: 'stop',
      },
    });
  });

  it('stops with refusal on finish_reason content_filter', async () => {
    replay('openai-content-filter.sse');
    expect(await end()).toMatchObject({
      type: 'message-end',
      message: { stop_reason: 'refusal', raw_stop_reason: 'content_filter' },
    });
  });

  it('calls a message with tool calls tool_use even when a compatible server says stop', async () => {
    server.enqueue({ toolCalls: [{ name: 'clock', input: {} }], stopReason: 'stop' });
    expect(await end()).toMatchObject({
      type: 'message-end',
      message: { stop_reason: 'tool_use', raw_stop_reason: 'stop' },
    });
  });

  it('does not call a 429 for an exhausted quota retryable', async () => {
    server.enqueue({
      status: 429,
      headers: { 'x-should-retry': 'false' },
      errorBody: {
        error: {
          message: 'You exceeded your current quota.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        },
      },
    });
    expect(await end()).toMatchObject({
      type: 'error',
      error: { status: 429, type: 'insufficient_quota', retryable: false },
    });
    expect(server.requests).toHaveLength(1);
  });
});
