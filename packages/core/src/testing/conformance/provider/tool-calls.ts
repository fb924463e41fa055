import { expect, it } from 'vitest';
import type { ProviderStreamEvent } from '../../../providers/provider.js';
import { endOf, type ProviderSuite } from './suite.js';

/** Tool calls assembled from the recorded wire's argument pieces. */
export function describeRecordedToolCallsContract({ harness, run, replay }: ProviderSuite): void {
  const { wire, recorded } = harness;
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
    expect(events.slice(0, -1)).toEqual(wire.toolCallsEnd === 'each' ? [...first, firstEnd, ...second, secondEnd] : [...first, ...second, firstEnd, secondEnd]);
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
}

/** Tool calls from the fake server: after text, and with arguments that are not JSON. */
export function describeToolCallAssemblyContract({ harness, server, run }: ProviderSuite): void {
  const { wire } = harness;
  it('assembles one tool call after text, from the fake server', async () => {
    server().enqueue({
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
    server().enqueue({ toolCalls: [{ id: 'call_bad', name: 'read', input: {}, arguments: '{"path": oops}' }] });
    expect(endOf(await run())).toMatchObject({
      type: 'message-end',
      message: {
        content: [{ type: 'tool_call', id: 'call_bad', name: 'read', input: {} }],
        stop_reason: 'tool_use',
      },
    });
  });
}
