import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeProviderConformance } from '../testing/conformance/index.js';
import { FakeLLMServer, usage } from '../testing/index.js';
import { AnthropicMessagesProvider } from './anthropic-messages.js';

function fixture(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
}

/** How the compaction `We fixed the parser.` goes out: framed so the model reads it as notes. */
const COMPACTED = '[Summary of the earlier conversation, which was compacted to save context. Continue from it.]\n\nWe fixed the parser.';

const cached = { cache_control: { type: 'ephemeral' } } as const;
const clock = {
  name: 'clock',
  description: 'The current time',
  input_schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};

/** Messages API bodies: caching is on by default, so the system prompt and the newest block carry a breakpoint. */
const body = (messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'claude-test',
  max_tokens: 8192,
  ...extra,
  messages,
  stream: true,
});
const text = (value: string): { type: 'text'; text: string } => ({ type: 'text', text: value });

/** The body after resuming the conformance suite's two-turn clock session. */
const resumed = {
  model: 'claude-test',
  max_tokens: 8192,
  system: [{ type: 'text', text: 'You are a clock.', ...cached }],
  messages: [
    { role: 'user', content: [text('What time is it in UTC?')] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I need the clock.', signature: 'sig-1==' },
        text('Let me check the clock.'),
        { type: 'tool_use', id: 'call_Clock01', name: 'clock', input: { zone: 'UTC' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_Clock01', content: '12:00 in UTC' }] },
    { role: 'assistant', content: [text('It is 12:00 in UTC.')] },
    { role: 'user', content: [text('Thanks!')] },
    { role: 'assistant', content: [text('You are welcome.')] },
    { role: 'user', content: [{ ...text('One more: Tokyo?'), ...cached }] },
  ],
  tools: [clock],
  stream: true,
};

describeProviderConformance('AnthropicMessagesProvider', {
  name: 'anthropic',
  model: 'claude-test',
  server: FakeLLMServer,
  create: (server, options = {}) =>
    new AnthropicMessagesProvider({
      model: 'claude-test',
      apiKey: 'test-key',
      baseURL: server.anthropicBaseURL,
      ...options,
    }),
  wire: {
    path: '/v1/messages',
    streaming: { stream: true },
    streamContentType: 'text/event-stream; charset=utf-8',
    retryAfter: { headers: (ms) => ({ 'retry-after-ms': String(ms) }), delay: (ms) => [ms, ms] },
    rawStopReasons: { endTurn: 'end_turn', toolUse: 'tool_use' },
    stopReasons: [
      ['end_turn', 'end_turn'],
      ['tool_use', 'tool_use'],
      ['max_tokens', 'max_tokens'],
      ['stop_sequence', 'stop_sequence'],
      ['refusal', 'refusal'],
      ['pause_turn', 'end_turn'],
      ['model_context_window_exceeded', 'max_tokens'],
    ],
    toolCallsEnd: 'each',
    thinking: 'signed',
    serverErrors: [503, 529],
    rateLimitType: 'rate_limit_error',
    badRequest: {
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: 100000 > 64000, which is the maximum allowed' },
      },
      type: 'invalid_request_error',
      message: 'max_tokens: 100000 > 64000, which is the maximum allowed',
    },
    malformedStream: 'event: message_start\ndata: {not json\n\n',
    toolCallIds: (sent) => {
      const blocks = (sent as { messages: { content: { type: string; id?: string; tool_use_id?: string }[] }[] }).messages.flatMap((m) => m.content);
      return {
        calls: blocks.flatMap((block) => (block.type === 'tool_use' && block.id !== undefined ? [block.id] : [])),
        results: blocks.flatMap((block) => (block.type === 'tool_result' && block.tool_use_id !== undefined ? [block.tool_use_id] : [])),
      };
    },
    acceptsToolCallId: (id) => /^[a-zA-Z0-9_-]+$/.test(id) && id.length <= 64,
  },
  recorded: {
    // message_delta carried only output_tokens: the input count is message_start's.
    text: { body: fixture('anthropic-text.sse'), usage: usage(25, 15) },
    toolCall: { body: fixture('anthropic-tool-use.sse'), id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', usage: usage(472, 89) },
    parallelToolCalls: {
      body: fixture('anthropic-parallel-tools.sse'),
      ids: ['toolu_01A09q90qw90lq917835lq9', 'toolu_01B8r7kLm2NqPz3sT4uV5wX6'],
      usage: usage(530, 112),
    },
    // Thinking with its signature and redacted thinking kept verbatim, in wire order.
    thinking: {
      body: fixture('anthropic-thinking.sse'),
      deltas: ['The user wants 27 * 453.', ' I should use the calculator.'],
      content: [
        {
          type: 'thinking',
          thinking: 'The user wants 27 * 453. I should use the calculator.',
          signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds==',
        },
        {
          type: 'redacted_thinking',
          data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB0URUqHvTZhKc1Lk==',
        },
        text("I'll work that out with the calculator."),
        {
          type: 'tool_call',
          id: 'toolu_01Cq7Vx5Yz8Ab2Cd4Ef6Gh8I',
          name: 'calculator',
          input: { expression: '27 * 453' },
        },
      ],
      usage: usage(96, 211),
      stopReason: 'tool_use',
    },
    cacheUsage: { body: fixture('anthropic-cache-usage.sse'), usage: usage(21, 9, 1830, 188) },
    // max_tokens cut the tool call's JSON short: the call is kept with an empty input.
    maxTokens: {
      body: fixture('anthropic-max-tokens.sse'),
      content: [text('Let me write that file.'), { type: 'tool_call', id: 'toolu_01Wr1t3F1l3AbCdEfGhIjKlM', name: 'write_file', input: {} }],
      rawStopReason: 'max_tokens',
    },
    errorMidStream: { body: fixture('anthropic-error-midstream.sse'), type: 'overloaded_error', message: 'Overloaded' },
  },
  requests: {
    basic: body([{ role: 'user', content: [{ ...text('What time is it?'), ...cached }] }], {
      max_tokens: 1024,
      system: [{ type: 'text', text: 'You are terse.\n\nPrefer tables.', ...cached }],
      tools: [clock],
      temperature: 0.5,
    }),
    // The results of one turn are ONE user message of tool_result blocks; an empty result has no content.
    toolResults: body([
      { role: 'user', content: [text('Read a, b and c')] },
      {
        role: 'assistant',
        content: [
          text('Reading.'),
          { type: 'tool_use', id: 'call_a', name: 'read', input: { path: 'a', lines: [1, 2] } },
          { type: 'tool_use', id: 'call_b', name: 'read', input: { path: 'b' } },
          { type: 'tool_use', id: 'call_c', name: 'read', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: 'contents of a' },
          { type: 'tool_result', tool_use_id: 'call_b', content: 'ENOENT: no such file', is_error: true },
          { type: 'tool_result', tool_use_id: 'call_c', ...cached },
        ],
      },
    ]),
    // The prompt joins the results' user turn, after them.
    promptAfterToolResults: body([
      { role: 'user', content: [text('Run it')] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_bash', name: 'bash', input: { command: 'sleep 100' } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'call_bash',
            content: 'Tool call aborted: the step was cancelled before this tool finished.',
            is_error: true,
          },
          { ...text('Never mind.'), ...cached },
        ],
      },
    ]),
    compaction: body([{ role: 'user', content: [text(COMPACTED), { ...text('What next?'), ...cached }] }], {
      system: [{ type: 'text', text: 'sys', ...cached }],
    }),
    alternation: body([
      { role: 'user', content: [text('First.'), text('Second.')] },
      { role: 'assistant', content: [text('Partial answ'), text('A full answer.')] },
      { role: 'user', content: [{ ...text('Third.'), ...cached }] },
    ]),
    // Unsigned reasoning left out; signed thinking and redacted thinking sent back verbatim;
    // `functions.get_time:1` fitted to ^[a-zA-Z0-9_-]+$; the empty replies skipped.
    foreignSession: body([
      { role: 'user', content: [text('Weather and time in Paris?')] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_use', id: 'functions_get_time_1_54fbf42b', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', content: '18°C' },
          { type: 'tool_result', tool_use_id: 'functions_get_time_1_54fbf42b', content: '14:00' },
        ],
      },
      { role: 'assistant', content: [text('It is 18°C at 14:00.')] },
      { role: 'user', content: [text('27 * 453?')] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Use the calculator.', signature: 'EqQBCgIYAhIM1gbcDa9G==' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix==' },
          {
            type: 'tool_use',
            id: 'toolu_01A09q90qw90lq917835lq9',
            name: 'calculator',
            input: { expression: '27 * 453' },
          },
          {
            type: 'tool_use',
            id: 'toolu_01VeryLongIdentifierFromSomeGatewayThatExceedsForty',
            name: 'calculator',
            input: { expression: '1 + 1' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '12231' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01VeryLongIdentifierFromSomeGatewayThatExceedsForty',
            content: '2',
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Nothing to say.', signature: 'sig==' }] },
      { role: 'user', content: [text('And tomorrow?'), { ...text('Hello?'), ...cached }] },
    ]),
  },
  agent: {
    resumed,
    toolLoop: { messages: resumed.messages.slice(0, 3) },
  },
});

describe('AnthropicMessagesProvider', () => {
  it('rejects a thinking budget that leaves no room below maxTokens', () => {
    expect(
      () =>
        new AnthropicMessagesProvider({
          model: 'claude-test',
          apiKey: 'k',
          thinking: { budgetTokens: 4096 },
          maxTokens: 4096,
        }),
    ).toThrow(/budgetTokens/);
  });
});
