import { describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.js';
import { AbortedError } from '../errors.js';
import type { AssistantMessage, Message } from '../messages.js';
import type { ProviderEvent, ProviderRequest } from './provider.js';
import { CapturingStore } from '../testing/index.js';
import { ToolRegistry, type ToolDefinition } from '../tool.js';
import { exampleCall, OFFLINE_PREFIX, OfflineProvider } from './offline.js';

const readFile: ToolDefinition = {
  name: 'read_file',
  description: 'Reads a file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
};
const clock: ToolDefinition = {
  name: 'clock',
  description: 'The time',
  input_schema: { type: 'object', properties: {} },
};

async function run(request: ProviderRequest, signal = new AbortController().signal): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of new OfflineProvider().stream(request, { signal })) events.push(event);
  return events;
}

function finalMessage(events: ProviderEvent[]): AssistantMessage {
  const end = events[events.length - 1];
  if (end?.type !== 'message-end') throw new Error(`expected message-end, got ${JSON.stringify(end)}`);
  return end.message;
}

function text(message: AssistantMessage): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}

describe('OfflineProvider', () => {
  it('says plainly that it is offline and echoes the prompt, streamed in deltas', async () => {
    const events = await run({ messages: [{ role: 'user', content: 'Hello, who are you?' }], tools: [] });
    const message = finalMessage(events);
    expect(text(message).startsWith(OFFLINE_PREFIX)).toBe(true);
    expect(text(message)).toContain('"Hello, who are you?"');
    expect(text(message)).toContain('ANTHROPIC_API_KEY');
    expect(events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(1);
    expect(message).toMatchObject({
      provider: 'offline',
      model: 'offline-1',
      stop_reason: 'end_turn',
      raw_stop_reason: 'end_turn',
    });
  });

  it('is deterministic: the same conversation gets the same events', async () => {
    const request: ProviderRequest = {
      messages: [{ role: 'user', content: 'use read_file {"path": "a.txt"}' }],
      tools: [readFile, clock],
    };
    expect(await run(request)).toEqual(await run(request));
  });

  it('calls the tool the latest prompt names, with the first JSON object in it as input', async () => {
    const message = finalMessage(
      await run({
        messages: [{ role: 'user', content: 'please use read_file {"path": "notes/a.txt"} and tell me' }],
        tools: [clock, readFile],
      }),
    );
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'text', text: `${OFFLINE_PREFIX} Calling the tool read_file.` },
      { type: 'tool_call', id: 'offline_call_1', name: 'read_file', input: { path: 'notes/a.txt' } },
    ]);
  });

  it('calls a named tool with an empty input when the prompt has no JSON object', async () => {
    const message = finalMessage(await run({ messages: [{ role: 'user', content: 'What does the CLOCK say?' }], tools: [clock] }));
    expect(message.content[1]).toEqual({ type: 'tool_call', id: 'offline_call_1', name: 'clock', input: {} });
  });

  it('does not call a tool whose name only appears inside a longer word', async () => {
    const message = finalMessage(await run({ messages: [{ role: 'user', content: 'my clockwork toy' }], tools: [clock] }));
    expect(message.stop_reason).toBe('end_turn');
    expect(text(message)).toContain('use clock {}');
  });

  it('answers tool results with a summary instead of calling the tool again', async () => {
    const messages: Message[] = [
      { role: 'user', content: 'use clock' },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'offline_call_1', name: 'clock', input: {} }],
        provider: 'offline',
        model: 'offline-1',
        usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
        stop_reason: 'tool_use',
      },
      { role: 'tool_result', tool_call_id: 'offline_call_1', tool_name: 'clock', content: '12:00', is_error: false },
    ];
    const message = finalMessage(await run({ messages, tools: [clock] }));
    expect(message.stop_reason).toBe('end_turn');
    expect(text(message)).toBe(`${OFFLINE_PREFIX} The tool clock returned: 12:00`);
  });

  it('estimates usage at four characters per token', async () => {
    const request: ProviderRequest = { messages: [{ role: 'user', content: 'x'.repeat(40) }], tools: [] };
    const message = finalMessage(await run(request));
    expect(message.usage).toEqual({
      input_tokens: Math.ceil((JSON.stringify(request.messages) + JSON.stringify(request.tools)).length / 4),
      output_tokens: Math.ceil(text(message).length / 4),
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
  });

  it('ends with an aborted error event keeping the text so far, and its estimated usage, when the signal aborts', async () => {
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const event of new OfflineProvider().stream(
      { messages: [{ role: 'user', content: 'hello there' }], tools: [] },
      { signal: controller.signal },
    )) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    const end = events[events.length - 1];
    expect(end?.type === 'error' && end.error).toBeInstanceOf(AbortedError);
    expect(end?.type === 'error' && end.partial).toMatchObject({
      content: [{ type: 'text', text: '[offline' }],
      stop_reason: 'aborted',
      // Estimated as a whole reply's is: the request at 4 characters a token, and the 8 characters that streamed.
      usage: {
        input_tokens: Math.ceil('[{"role":"user","content":"hello there"}][]'.length / 4),
        output_tokens: 2,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      },
    });
  });

  it('runs the agent tool loop: one call to the named tool, then a summary of its result', async () => {
    const calls: unknown[] = [];
    const tools = new ToolRegistry([
      {
        ...readFile,
        execute: async (input) => {
          calls.push(input);
          return 'hello from a.txt';
        },
      },
    ]);
    const store = new CapturingStore();
    const agent = new Agent({ provider: new OfflineProvider(), tools }, { store });
    await agent.submitUserMessage('use read_file {"path": "a.txt"}');
    const result = await agent.runStep();
    expect(calls).toEqual([{ path: 'a.txt' }]);
    expect(result).toMatchObject({ stopReason: 'end_turn', providerCalls: 2, incomplete: false });
    expect(store.records.map((record) => record.type === 'message' && record.message.role)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
    const last = store.records[3];
    expect(last?.type === 'message' && last.message.role === 'assistant' && text(last.message)).toBe(
      `${OFFLINE_PREFIX} The tool read_file returned: hello from a.txt`,
    );
  });
});

describe('OfflineProvider hints and summaries', () => {
  const read: ToolDefinition = {
    name: 'read',
    description: 'Reads a file',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  };
  const bash: ToolDefinition = {
    name: 'bash',
    description: 'Runs a command',
    input_schema: {
      type: 'object',
      properties: { command: { type: 'string', examples: ['ls'] } },
      required: ['command'],
    },
  };

  it('offers an example call that fills every required input, skipping tools it has no value for', () => {
    expect(exampleCall([read, bash])).toBe('bash {"command":"ls"}');
    expect(exampleCall([read, clock, bash])).toBe('clock {}');
    expect(exampleCall([read])).toBeUndefined();
  });

  it('the example in its hint is a call that, sent back, passes the tool its required input', async () => {
    const hint = text(finalMessage(await run({ messages: [{ role: 'user', content: 'hi' }], tools: [read, bash] })));
    const example = /e\.g\. "use (.+?)"\. Tools/.exec(hint)?.[1];
    expect(example).toBe('bash {"command":"ls"}');
    const call = finalMessage(await run({ messages: [{ role: 'user', content: `use ${example!}` }], tools: [read, bash] }));
    expect(call.content).toContainEqual(expect.objectContaining({ type: 'tool_call', name: 'bash', input: { command: 'ls' } }));
  });

  it('/compact through an agent gives a summary of the conversation, not a tool call', async () => {
    const tools = new ToolRegistry([
      { ...read, execute: async () => 'line one of a.txt' },
      {
        name: 'write',
        description: 'Writes a file',
        input_schema: { type: 'object', properties: {} },
        execute: async () => 'written',
      },
    ]);
    const agent = new Agent({ provider: new OfflineProvider(), tools }, { store: new CapturingStore() });
    await agent.submitUserMessage('please use read {"path": "a.txt"}');
    await agent.runStep();
    const { summary } = await agent.compact();
    expect(summary).not.toContain('Calling the tool');
    expect(summary).toContain('Summary of the conversation so far');
    expect(summary).toContain('The user asked: "please use read {"path": "a.txt"}"');
    expect(summary).toContain('Tool call: read {"path":"a.txt"} → ok: line one of a.txt');
    expect(summary).toContain('Last answer: "The tool read returned: line one of a.txt"');
  });
});
