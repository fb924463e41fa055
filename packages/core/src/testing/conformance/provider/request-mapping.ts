import { expect, it } from 'vitest';
import type { AssistantBlock, Message } from '../../../messages.js';
import type { ProviderRequest } from '../../../providers/provider.js';
import type { ToolDefinition } from '../../../tool.js';
import { usage } from '../../fixtures.js';
import type { ExpectedRequests, ProviderConformanceOptions } from './harness.js';
import type { ProviderSuite } from './suite.js';

/** The one tool the standard conversations offer. */
export const CLOCK_TOOL: ToolDefinition = {
  name: 'clock',
  description: 'The current time',
  input_schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};

function assistant(content: AssistantBlock[], provider: string): Message {
  return { role: 'assistant', content, provider, model: 'm', usage: usage(1, 1), stop_reason: 'end_turn' };
}

function result(id: string, content: string, name: string, isError = false): Message {
  return { role: 'tool_result', tool_call_id: id, tool_name: name, content, is_error: isError };
}

/** Longer than OpenAI's 40 characters; fits Anthropic's pattern and length. */
const LONG_ID = 'toolu_01VeryLongIdentifierFromSomeGatewayThatExceedsForty';
/** As some OpenAI-compatible servers write them; not Anthropic's `^[a-zA-Z0-9_-]+$`. */
const DOTTED_ID = 'functions.get_time:1';

/**
 * The conversations every provider must send as its wire expects (`ExpectedRequests` holds
 * the bodies), with the options each is sent with.
 */
const STANDARD_CONVERSATIONS: Record<keyof ExpectedRequests, { request: ProviderRequest; options?: ProviderConformanceOptions }> = {
  basic: {
    request: {
      messages: [
        { role: 'system', content: 'You are terse.', mode: 'replace' },
        { role: 'user', content: 'What time is it?' },
        { role: 'system', content: 'Prefer tables.', mode: 'append' },
      ],
      tools: [CLOCK_TOOL],
    },
    options: { maxTokens: 1024, temperature: 0.5 },
  },
  toolResults: {
    request: {
      messages: [
        { role: 'user', content: 'Read a, b and c' },
        assistant(
          [
            { type: 'text', text: 'Reading.' },
            { type: 'tool_call', id: 'call_a', name: 'read', input: { path: 'a', lines: [1, 2] } },
            { type: 'tool_call', id: 'call_b', name: 'read', input: { path: 'b' } },
            { type: 'tool_call', id: 'call_c', name: 'read', input: {} },
          ],
          'any',
        ),
        result('call_a', 'contents of a', 'read'),
        result('call_b', 'ENOENT: no such file', 'read', true),
        result('call_c', '', 'read'),
      ],
      tools: [],
    },
  },
  promptAfterToolResults: {
    request: {
      messages: [
        { role: 'user', content: 'Run it' },
        assistant([{ type: 'tool_call', id: 'call_bash', name: 'bash', input: { command: 'sleep 100' } }], 'any'),
        result('call_bash', 'Tool call aborted: the step was cancelled before this tool finished.', 'bash', true),
        { role: 'user', content: 'Never mind.' },
      ],
      tools: [],
    },
  },
  compaction: {
    request: {
      messages: [
        { role: 'system', content: 'sys', mode: 'replace' },
        {
          role: 'compaction',
          summary: 'We fixed the parser.',
          provider: 'any',
          model: 'm',
          usage: usage(1, 1),
          prior_usage: usage(9, 9),
        },
        { role: 'user', content: 'What next?' },
      ],
      tools: [],
    },
  },
  alternation: {
    request: {
      messages: [
        { role: 'user', content: 'First.' },
        { role: 'user', content: 'Second.' },
        assistant([{ type: 'text', text: 'Partial answ' }], 'any'),
        assistant([{ type: 'text', text: 'A full answer.' }], 'any'),
        { role: 'user', content: 'Third.' },
      ],
      tools: [],
    },
  },
  foreignSession: {
    request: {
      messages: [
        { role: 'user', content: 'Weather and time in Paris?', provider: 'openai', model: 'gpt-x' },
        assistant(
          [
            { type: 'thinking', thinking: 'reasoning a compatible server streamed', signature: '' },
            {
              type: 'tool_call',
              id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
              name: 'get_weather',
              input: { location: 'Paris' },
            },
            { type: 'tool_call', id: DOTTED_ID, name: 'get_time', input: {} },
          ],
          'openai',
        ),
        result('call_DdmO9pD3xa9XTPNJ32zg2hcA', '18°C', 'get_weather'),
        result(DOTTED_ID, '14:00', 'get_time'),
        assistant([{ type: 'text', text: 'It is 18°C at 14:00.' }], 'openai'),
        { role: 'user', content: '27 * 453?', provider: 'anthropic', model: 'claude-x' },
        assistant(
          [
            { type: 'thinking', thinking: 'Use the calculator.', signature: 'EqQBCgIYAhIM1gbcDa9G==' },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix==' },
            {
              type: 'tool_call',
              id: 'toolu_01A09q90qw90lq917835lq9',
              name: 'calculator',
              input: { expression: '27 * 453' },
            },
            { type: 'tool_call', id: LONG_ID, name: 'calculator', input: { expression: '1 + 1' } },
          ],
          'anthropic',
        ),
        result('toolu_01A09q90qw90lq917835lq9', '12231', 'calculator'),
        result(LONG_ID, '2', 'calculator'),
        // Only thinking: a wire that sends thinking back keeps it; one that drops thinking skips the message.
        assistant([{ type: 'thinking', thinking: 'Nothing to say.', signature: 'sig==' }], 'anthropic'),
        { role: 'user', content: 'And tomorrow?' },
        // A reply cut short before any text, then a blank one: neither is sendable.
        assistant([], 'openai'),
        assistant([{ type: 'text', text: '  ' }], 'openai'),
        { role: 'user', content: 'Hello?' },
      ],
      tools: [],
    },
  },
};

/** The tool-call ids of `foreignSession`, in order. */
const FOREIGN_IDS = ['call_DdmO9pD3xa9XTPNJ32zg2hcA', DOTTED_ID, 'toolu_01A09q90qw90lq917835lq9', LONG_ID];

/** The request-mapping part of `describeProviderConformance`: each standard conversation's exact body. */
export function describeRequestMappingContract({ harness, server }: ProviderSuite): void {
  async function sent(name: keyof ExpectedRequests): Promise<unknown> {
    const { request, options } = STANDARD_CONVERSATIONS[name];
    server().enqueue({ text: 'ok' });
    for await (const event of harness.create(server(), options).stream(request, { signal: new AbortController().signal })) {
      if (event.type === 'error') throw event.error;
    }
    const requests = server().requests;
    expect(requests).toHaveLength(1);
    return requests[0]?.body;
  }

  it('folds the system messages, and sends the prompt, the tools, max tokens and temperature', async () => {
    expect(await sent('basic')).toStrictEqual(harness.requests.basic);
  });

  it('sends tool calls with their inputs and every result, marking the error result and keeping the empty one', async () => {
    expect(await sent('toolResults')).toStrictEqual(harness.requests.toolResults);
  });

  it('sends a prompt that follows tool results after them', async () => {
    expect(await sent('promptAfterToolResults')).toStrictEqual(harness.requests.promptAfterToolResults);
  });

  it('sends a compaction as a framed user message, with the prompt after it', async () => {
    expect(await sent('compaction')).toStrictEqual(harness.requests.compaction);
  });

  it('merges consecutive messages of one role, for wires and servers that insist roles alternate', async () => {
    expect(await sent('alternation')).toStrictEqual(harness.requests.alternation);
  });

  it('sends a session written by other providers: ids that fit kept, others fitted the same way for call and result, nothing empty', async () => {
    const body = await sent('foreignSession');
    expect(body).toStrictEqual(harness.requests.foreignSession);
    const { calls, results } = harness.wire.toolCallIds(body);
    expect(results).toEqual(calls);
    expect(calls).toHaveLength(FOREIGN_IDS.length);
    expect(new Set(calls).size).toBe(FOREIGN_IDS.length);
    for (const [index, id] of calls.entries()) {
      expect(harness.wire.acceptsToolCallId(id), id).toBe(true);
      const original = FOREIGN_IDS[index]!;
      if (harness.wire.acceptsToolCallId(original)) expect(id).toBe(original);
    }
  });
}
