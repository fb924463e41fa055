import { describe, expect, it } from 'vitest';
import { Agent } from './agent.js';
import { Conversation } from '../conversation.js';
import { AgentBusyError, EntryNotFoundError, NothingToCompactError, ProviderError } from '../errors.js';
import type { AgentEvent } from './events.js';
import type { Provider, ProviderCallOptions, ProviderEvent, ProviderRequest } from '../providers/provider.js';
import type { DiskMessage } from '../session/records.js';
import { MemoryStore } from '../stores/memory-store.js';
import { NullStore } from '../stores/null-store.js';
import { CapturingStore, ScriptedProvider, usage } from '../testing/index.js';
import { ToolRegistry, type Tool } from '../tool.js';

const frozen = () => {
  let n = 0;
  return { clock: () => new Date(Date.UTC(2026, 10, 29, 12, 0, 0)), ids: () => `id-${++n}` };
};

const echoTool: Tool = {
  name: 'echo',
  description: 'Echoes its input',
  input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: async (input) => `echo: ${String(input.text)}`,
};

function setup(replies: ConstructorParameters<typeof ScriptedProvider>[0], tools: Tool[] = [echoTool]) {
  const provider = new ScriptedProvider(replies);
  const store = new CapturingStore();
  const agent = new Agent({ provider, tools: new ToolRegistry(tools), ...frozen() }, { store });
  const events: AgentEvent[] = [];
  return { provider, store, agent, events, receiver: (e: AgentEvent) => events.push(e) };
}

const roles = (records: readonly DiskMessage[]) => records.map((r) => (r.type === 'message' ? r.message.role : r.type));

describe('Agent', () => {
  it('persists the user prompt, stamped with provider and model, before it returns and before any provider call', async () => {
    const { agent, store, provider } = setup([{ text: 'hello' }]);
    await agent.submitUserMessage('hi there');
    expect(provider.requests).toHaveLength(0);
    expect(store.batches).toEqual([
      [
        {
          type: 'message',
          id: 'id-1',
          timestamp: '2026-11-29T12:00:00.000Z',
          message: { role: 'user', content: 'hi there', provider: 'scripted', model: 'scripted-1' },
        },
      ],
    ]);
    expect(agent.conversation.messages).toEqual([store.batches[0]![0]!.type === 'message' && store.batches[0]![0]!.message]);
  });

  it('runs a text turn: streams deltas to the receiver and persists the assistant message with usage and stop reason', async () => {
    const { agent, store, events, receiver } = setup([{ text: 'Hello, world', usage: { input_tokens: 12, output_tokens: 3 } }]);
    await agent.submitUserMessage('hi');
    const result = await agent.runStep(receiver);
    expect(result).toMatchObject({ stopReason: 'end_turn', incomplete: false, providerCalls: 1, usage: usage(12, 3) });
    expect(
      events
        .filter((e) => e.type === 'text-delta')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Hello, world');
    expect(events.map((e) => e.type)).toContain('entries-persisted');
    expect(events[events.length - 1]!.type).toBe('step-end');
    expect(store.batches.map(roles)).toEqual([['user'], ['assistant']]);
    expect(agent.conversation.messages[1]).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello, world' }],
      usage: usage(12, 3),
      stop_reason: 'end_turn',
      provider: 'scripted',
      model: 'scripted-1',
    });
    expect(agent.conversation.usage()).toEqual(usage(12, 3));
  });

  it('persists each assistant message together with its tool results as one batch, then continues', async () => {
    const { agent, store, provider } = setup([
      {
        text: 'Let me check.',
        toolCalls: [
          { id: 't1', name: 'echo', input: { text: 'a' } },
          { id: 't2', name: 'echo', input: { text: 'b' } },
        ],
        usage: { input_tokens: 5, output_tokens: 5 },
      },
      { text: 'Done: a, b.', usage: { input_tokens: 20, output_tokens: 4 } },
    ]);
    await agent.submitUserMessage('echo a and b');
    const result = await agent.runStep();
    expect(store.batches.map(roles)).toEqual([['user'], ['assistant', 'tool_result', 'tool_result'], ['assistant']]);
    expect(store.batches[1]!.slice(1).map((r) => r.type === 'message' && r.message)).toEqual([
      { role: 'tool_result', tool_call_id: 't1', tool_name: 'echo', content: 'echo: a', is_error: false },
      { role: 'tool_result', tool_call_id: 't2', tool_name: 'echo', content: 'echo: b', is_error: false },
    ]);
    expect(provider.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_result', 'tool_result']);
    expect(provider.requests[0]!.tools).toEqual([{ name: 'echo', description: 'Echoes its input', input_schema: echoTool.input_schema }]);
    expect(result).toMatchObject({ stopReason: 'end_turn', providerCalls: 2, usage: usage(25, 9) });
    expect(result.messages).toHaveLength(4);
    expect(agent.conversation.usage()).toEqual(usage(25, 9));
  });

  it('turns a throwing tool and an unknown tool into error results the model sees', async () => {
    const failing: Tool = {
      ...echoTool,
      name: 'fail',
      execute: async () => {
        throw new Error('disk full');
      },
    };
    const { agent, store } = setup(
      [
        {
          toolCalls: [
            { id: 'a', name: 'fail', input: {} },
            { id: 'b', name: 'nope', input: {} },
          ],
        },
        { text: 'ok' },
      ],
      [failing],
    );
    await agent.submitUserMessage('go');
    const result = await agent.runStep();
    expect(result.stopReason).toBe('end_turn');
    const results = store.batches[1]!.slice(1).map((r) => r.type === 'message' && r.message);
    expect(results).toEqual([
      {
        role: 'tool_result',
        tool_call_id: 'a',
        tool_name: 'fail',
        content: 'Tool fail failed: disk full',
        is_error: true,
      },
      { role: 'tool_result', tool_call_id: 'b', tool_name: 'nope', content: 'Unknown tool: nope', is_error: true },
    ]);
  });

  it('takes credentials out of a thrown tool error before it is stored or sent to the model', async () => {
    const thrower: Tool = {
      ...echoTool,
      name: 'thrower',
      execute: async () => {
        throw new Error('POST https://api.example/v1: 401 for Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl');
      },
    };
    const { agent, store, provider } = setup([{ toolCalls: [{ id: 'a', name: 'thrower', input: {} }] }, { text: 'ok' }], [thrower]);
    await agent.submitUserMessage('go');
    await agent.runStep();
    const [result] = store.batches[1]!.slice(1).map((r) => r.type === 'message' && r.message.role === 'tool_result' && r.message.content);
    expect(result).toBe('Tool thrower failed: POST https://api.example/v1: 401 for Authorization: Bearer [redacted]');
    expect(JSON.stringify(provider.requests[1]!.messages)).not.toContain('eyJhbGci');
  });

  it('on a provider error mid-stream keeps what was committed and the complete text, then reports the error', async () => {
    const failure = new ProviderError('scripted', 'connection reset', { retryable: true });
    const { agent, store, events, receiver } = setup([
      { toolCalls: [{ id: 't', name: 'echo', input: { text: 'x' } }] },
      { text: 'partial answer here', error: failure, failAfterChunks: 2 },
    ]);
    await agent.submitUserMessage('go');
    const result = await agent.runStep(receiver);
    expect(result).toMatchObject({ stopReason: 'error', incomplete: true, error: failure });
    expect(events.some((e) => e.type === 'error' && e.error === failure)).toBe(true);
    expect(store.batches.map(roles)).toEqual([['user'], ['assistant', 'tool_result'], ['assistant']]);
    expect(store.batches[2]![0]).toMatchObject({
      message: {
        content: [{ type: 'text', text: 'partial ' }],
        stop_reason: 'error',
        error_message: 'connection reset',
      },
    });
    const reloaded = await store.loadConversation();
    expect(reloaded.conversation.messages).toEqual(agent.conversation.messages);
  });

  it('persists nothing for a provider error before any text, and the prompt stays answered by nothing', async () => {
    const { agent, store } = setup([{ error: new ProviderError('scripted', 'bad request', { status: 400 }) }]);
    await agent.submitUserMessage('go');
    const result = await agent.runStep();
    expect(result.stopReason).toBe('error');
    expect(store.batches.map(roles)).toEqual([['user']]);
    expect((await store.loadConversation()).danglingUser).toBe('go');
  });

  it('aborts a hanging provider call promptly, keeping the text that arrived, marked aborted', async () => {
    const { agent, store } = setup([{ text: 'thinking about it', hang: true, hangAfterChunks: 2 }]);
    await agent.submitUserMessage('go');
    const controller = new AbortController();
    const running = agent.runStep(
      (event) => {
        if (event.type === 'text-delta' && event.delta === 'king') setTimeout(() => controller.abort(), 5);
      },
      { signal: controller.signal },
    );
    const result = await running;
    expect(result).toMatchObject({ stopReason: 'aborted', incomplete: true });
    expect(result.error?.name).toBe('AbortedError');
    expect(store.batches[1]![0]).toMatchObject({
      message: { stop_reason: 'aborted', content: [{ text: 'thinking' }] },
    });
  });

  it('aborts while a tool runs: the assistant message and an aborted result are persisted together', async () => {
    const controller = new AbortController();
    let sawSignal: AbortSignal | undefined;
    const slow: Tool = {
      ...echoTool,
      name: 'slow',
      execute: (_input, context) => {
        sawSignal = context.signal;
        controller.abort();
        return new Promise(() => {}); // never settles on its own
      },
    };
    const { agent, store } = setup(
      [
        {
          toolCalls: [
            { id: 's1', name: 'slow', input: {} },
            { id: 's2', name: 'slow', input: {} },
          ],
        },
      ],
      [slow],
    );
    await agent.submitUserMessage('go');
    const result = await agent.runStep(undefined, { signal: controller.signal });
    expect(result.stopReason).toBe('aborted');
    expect(sawSignal?.aborted).toBe(true);
    expect(store.batches.map(roles)).toEqual([['user'], ['assistant', 'tool_result', 'tool_result']]);
    expect(store.batches[1]!.slice(1).every((r) => r.type === 'message' && r.message.role === 'tool_result' && r.message.is_error)).toBe(true);
    const { conversation, danglingUser } = await store.loadConversation();
    expect(danglingUser).toBeNull();
    expect(conversation.messages).toEqual(agent.conversation.messages);
  });

  it('throws a store failure and leaves the conversation without the unpersisted messages', async () => {
    const { agent, store } = setup([{ text: 'answer' }]);
    await agent.submitUserMessage('go');
    store.failNextAppend(new Error('EIO'));
    await expect(agent.runStep()).rejects.toThrow('EIO');
    expect(agent.conversation.messages.map((m) => m.role)).toEqual(['user']);
    store.failNextAppend(new Error('EIO'));
    await expect(agent.submitUserMessage('again')).rejects.toThrow('EIO');
    expect(agent.conversation.length).toBe(1);
  });

  it('refuses a second operation while a step runs', async () => {
    const { agent } = setup([{ text: 'x', hang: true }]);
    await agent.submitUserMessage('go');
    const controller = new AbortController();
    const running = agent.runStep(undefined, { signal: controller.signal });
    await expect(agent.runStep()).rejects.toBeInstanceOf(AgentBusyError);
    await expect(agent.submitUserMessage('more')).rejects.toBeInstanceOf(AgentBusyError);
    controller.abort();
    await running;
    await agent.submitUserMessage('now it works');
  });

  it('stops after maxProviderCalls and says the step is incomplete', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo', input: { text: '1' } }] },
      { toolCalls: [{ name: 'echo', input: { text: '2' } }] },
      { text: 'never reached' },
    ]);
    const agent = new Agent({ provider, tools: new ToolRegistry([echoTool]), maxProviderCalls: 2 });
    await agent.submitUserMessage('loop');
    const result = await agent.runStep();
    expect(result).toMatchObject({ incomplete: true, providerCalls: 2, stopReason: 'tool_use' });
    expect(provider.remaining).toBe(1);
  });

  it('keeps going when the receiver throws', async () => {
    const { agent, store } = setup([{ text: 'fine' }]);
    await agent.submitUserMessage('go');
    const result = await agent.runStep(() => {
      throw new Error('bad receiver');
    });
    expect(result.stopReason).toBe('end_turn');
    expect(store.batches).toHaveLength(2);
  });

  it('adds and persists system messages; the provider sees them in the conversation', async () => {
    const { agent, store, provider } = setup([{ text: 'ok' }]);
    await agent.addSystemMessage('Be brief.', 'replace');
    await agent.addSystemMessage('Use metric units.', 'append');
    expect(agent.conversation.systemPrompt()).toBe('Be brief.\n\nUse metric units.');
    await agent.submitUserMessage('hi');
    await agent.runStep();
    expect(store.batches.map(roles)).toEqual([['system'], ['system'], ['user'], ['assistant']]);
    expect(provider.requests[0]!.messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'Be brief.', mode: 'replace' },
      { role: 'system', content: 'Use metric units.', mode: 'append' },
    ]);
  });

  it('resumes on the conversation its store rebuilds and sends it to the provider', async () => {
    const first = setup([{ text: 'first answer' }]);
    await first.agent.submitUserMessage('first question');
    await first.agent.runStep();
    const provider = new ScriptedProvider([{ text: 'second answer' }]);
    const { agent: resumed, danglingUser } = await Agent.resume(first.store, { provider });
    expect(danglingUser).toBeNull();
    expect(resumed.conversation.messages).toEqual(first.agent.conversation.messages);
    await resumed.submitUserMessage('second question');
    await resumed.runStep();
    expect(provider.requests[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect((await first.store.loadConversation()).conversation.length).toBe(4);
  });

  it('runs a turn on the default NullStore without persisting anything or failing', async () => {
    const agent = new Agent({ provider: new ScriptedProvider([{ text: 'hi' }]) });
    expect(agent.sessionStore).toBeInstanceOf(NullStore);
    await agent.submitUserMessage('hello');
    const result = await agent.runStep();
    expect(result.stopReason).toBe('end_turn');
    expect(agent.conversation.length).toBe(2);
    expect((await agent.sessionStore.loadConversation()).conversation.length).toBe(0);
    expect(agent.sessionStore.activeModel()).toBeNull();
  });

  it('compacts through the provider and persists it; a later load returns the compacted conversation', async () => {
    const store = new MemoryStore();
    const provider = new ScriptedProvider([
      { text: 'answer one', usage: { input_tokens: 100, output_tokens: 10 } },
      { text: 'Summary: the user asked one thing.', usage: { input_tokens: 120, output_tokens: 8 } },
      { text: 'answer two', usage: { input_tokens: 30, output_tokens: 3 } },
    ]);
    const agent = new Agent({ provider, ...frozen() }, { store });
    await agent.addSystemMessage('sys', 'replace');
    await agent.submitUserMessage('question one');
    await agent.runStep();
    const result = await agent.compact('focus on numbers');
    expect(result.summary).toBe('Summary: the user asked one thing.');
    const compactRequest = provider.requests[1]!.messages;
    expect(compactRequest[compactRequest.length - 1]).toMatchObject({
      role: 'user',
      content: expect.stringContaining('focus on numbers'),
    });
    expect(agent.conversation.messages.map((m) => m.role)).toEqual(['system', 'compaction']);
    expect(store.entries[store.entries.length - 1]).toMatchObject({
      type: 'compaction',
      summary: result.summary,
      prior_usage: usage(100, 10),
    });
    await agent.submitUserMessage('question two');
    await agent.runStep();
    expect(provider.requests[2]!.messages.map((m) => m.role)).toEqual(['system', 'compaction', 'user']);
    const loaded = await MemoryStore.open(store).loadConversation();
    expect(loaded.conversation.messages).toEqual(agent.conversation.messages);
    expect(loaded.conversation.usage()).toEqual(usage(250, 21));
  });

  it('changes nothing when compaction fails', async () => {
    const store = new CapturingStore();
    const provider = new ScriptedProvider([{ text: 'a' }, { error: new ProviderError('scripted', 'overloaded', { status: 529 }) }]);
    const agent = new Agent({ provider }, { store });
    await agent.submitUserMessage('q');
    await agent.runStep();
    await expect(agent.compact()).rejects.toThrow('overloaded');
    expect(agent.conversation.length).toBe(2);
    expect(store.batches).toHaveLength(2);
  });

  it('reads usage from the conversation, not from the receiver', async () => {
    const { agent } = setup([{ text: 'a', usage: { input_tokens: 7, output_tokens: 1, cache_read_tokens: 5, cache_write_tokens: 2 } }]);
    await agent.submitUserMessage('q');
    await agent.runStep(); // no receiver at all
    expect(agent.conversation.usage()).toEqual(usage(7, 1, 5, 2));
  });
});

describe('Provider contract enforcement', () => {
  it('treats a provider that throws or ends without a message as an error end, not a crash', async () => {
    const throwing: Provider = {
      name: 'bad',
      model: 'bad-1',
      // biome-ignore lint/correctness/useYield: a provider that throws before its first event
      async *stream(_request: ProviderRequest, _options: ProviderCallOptions) {
        throw new Error('kaboom');
      },
    };
    const agent = new Agent({ provider: throwing });
    await agent.submitUserMessage('q');
    expect(await agent.runStep()).toMatchObject({ stopReason: 'error', error: { message: 'kaboom' } });
    const silent: Provider = { name: 'silent', model: 's', async *stream() {} };
    agent.provider = silent;
    expect((await agent.runStep()).error?.message).toMatch(/ended without a message/);
  });

  it('returns the persisted record from submitUserMessage and addSystemMessage', async () => {
    const { agent, store } = setup([]);
    const system = await agent.addSystemMessage('Be brief.', 'replace');
    const prompt = await agent.submitUserMessage('hi');
    expect(system).toEqual({
      type: 'message',
      id: 'id-1',
      timestamp: '2026-11-29T12:00:00.000Z',
      message: { role: 'system', content: 'Be brief.', mode: 'replace' },
    });
    expect(prompt).toMatchObject({ type: 'message', id: 'id-2', message: { role: 'user', content: 'hi' } });
    expect(store.records).toEqual([system, prompt]);
  });

  it('tells subscribers of every write, whichever method made it, through the same entries-persisted event', async () => {
    const { agent } = setup([{ text: 'answer' }, { text: 'the summary' }]);
    const seen: AgentEvent[] = [];
    const unsubscribe = agent.subscribe((event) => seen.push(event));
    await agent.addSystemMessage('sys');
    await agent.submitUserMessage('question');
    await agent.runStep();
    await agent.compact();
    const persisted = seen.filter((e) => e.type === 'entries-persisted').map((e) => roles(e.records));
    expect(persisted).toEqual([['system'], ['user'], ['assistant'], ['compaction']]);
    expect(seen.map((e) => e.type).filter((t) => !t.startsWith('text') && (t.endsWith('-start') || t.endsWith('-end')))).toEqual([
      'step-start',
      'message-start',
      'message-end',
      'step-end',
      'compaction-start',
      'message-start',
      'message-end',
      'compaction-end',
    ]);
    unsubscribe();
    await agent.submitUserMessage('unheard');
    expect(seen.filter((e) => e.type === 'entries-persisted')).toHaveLength(4);
  });

  it('compacts through the same write path: the store holds the compaction before the conversation changes', async () => {
    const { agent, store } = setup([{ text: 'a' }, { text: 'sum' }]);
    await agent.submitUserMessage('q');
    await agent.runStep();
    store.failNextAppend();
    await expect(agent.compact()).rejects.toThrow('injected append failure');
    expect(agent.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('throws NothingToCompactError, writing nothing, when there is only the system prompt', async () => {
    const { agent, store, provider } = setup([{ text: 'unused' }]);
    await agent.addSystemMessage('only this');
    await expect(agent.compact()).rejects.toBeInstanceOf(NothingToCompactError);
    expect(provider.requests).toHaveLength(0);
    expect(store.records).toHaveLength(1);
  });

  it("gives embedders a conversation they cannot change behind the agent's back", async () => {
    const { agent } = setup([]);
    await agent.submitUserMessage('hi');
    // @ts-expect-error — the conversation has no public mutators
    expect(agent.conversation.push).toBeUndefined();
    // @ts-expect-error — nor does the agent let it be replaced
    expect(() => (agent.conversation = new Conversation())).toThrow(TypeError);
  });

  it('continues from an earlier entry without writing, then branches there with its next write', async () => {
    const store = new MemoryStore();
    const agent = new Agent({ provider: new ScriptedProvider([{ text: 'first answer' }, { text: 'second answer' }]), ...frozen() }, { store });
    const prompt = await agent.submitUserMessage('first');
    await agent.runStep();
    const held = agent.conversation;
    const point = await agent.continueFrom(prompt.id);
    expect(point).toMatchObject({ danglingUser: 'first', at: { id: prompt.id } });
    expect(agent.conversation).toBe(held);
    expect(agent.conversation.messages).toEqual([]);
    expect(store.entries).toHaveLength(2);
    const edited = await agent.submitUserMessage('first, edited');
    await agent.runStep();
    expect(store.entries.find((entry) => entry.id === edited.id)?.parent_id).toBeNull();
    const { agent: resumed } = await Agent.resume(MemoryStore.open(store), { provider: new ScriptedProvider([]) });
    expect(resumed.conversation.messages.map((m) => (m.role === 'user' ? m.content : m.role))).toEqual(['first, edited', 'assistant']);
  });

  it('switches the session to another leaf and follows it; a resume loads the same branch', async () => {
    const store = new MemoryStore();
    const agent = new Agent({ provider: new ScriptedProvider([{ text: 'a1' }, { text: 'a2' }]), ...frozen() }, { store });
    await agent.submitUserMessage('q1');
    await agent.runStep();
    const firstAnswer = store.entries[1]!.id;
    await agent.submitUserMessage('q2');
    await agent.runStep();
    const point = await agent.switchLeaf(firstAnswer);
    expect(point).toEqual({ danglingUser: null, at: store.entries[1] });
    expect(agent.conversation.messages).toHaveLength(2);
    expect(store.entries.at(-1)).toMatchObject({ type: 'leaf', parent_id: firstAnswer });
    const { agent: resumed, at } = await Agent.resume(MemoryStore.open(store), { provider: new ScriptedProvider([]) });
    expect(resumed.conversation.messages).toEqual(agent.conversation.messages);
    expect(at?.id).toBe(firstAnswer);
  });

  it('refuses to move while a step runs, and leaves the conversation as it was for an unknown entry', async () => {
    const { agent } = setup([{ hang: true }]);
    await agent.submitUserMessage('q');
    const controller = new AbortController();
    const step = agent.runStep(undefined, { signal: controller.signal });
    await expect(agent.continueFrom(null)).rejects.toBeInstanceOf(AgentBusyError);
    controller.abort();
    await step;
    await expect(agent.switchLeaf('nope')).rejects.toBeInstanceOf(EntryNotFoundError);
    expect(agent.conversation.messages.map((m) => m.role)).toEqual(['user']);
  });
});

describe('beforeToolCall', () => {
  function guarded(beforeToolCall: NonNullable<ConstructorParameters<typeof Agent>[0]['beforeToolCall']>, tools: Tool[] = [echoTool]) {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 't1', name: 'echo', input: { text: 'a' } },
          { id: 't2', name: 'echo', input: { text: 'b' } },
        ],
      },
      { text: 'done' },
    ]);
    const store = new CapturingStore();
    const agent = new Agent({ provider, tools: new ToolRegistry(tools), beforeToolCall, ...frozen() }, { store });
    return { agent, store, provider };
  }

  it('turns a refusal into an error result the model sees, persisted with the assistant message, without running the tool', async () => {
    const ran: string[] = [];
    const counting: Tool = {
      ...echoTool,
      execute: async (input) => {
        ran.push(String(input.text));
        return `echo: ${String(input.text)}`;
      },
    };
    const { agent, store, provider } = guarded((call) => (call.input.text === 'a' ? { type: 'refuse', reason: 'no a today' } : undefined), [counting]);
    const events: AgentEvent[] = [];
    await agent.submitUserMessage('go');
    await agent.runStep((event) => events.push(event));
    expect(ran).toEqual(['b']);
    expect(store.batches.map(roles)).toEqual([['user'], ['assistant', 'tool_result', 'tool_result'], ['assistant']]);
    expect(store.batches[1]!.slice(1).map((r) => r.type === 'message' && r.message)).toEqual([
      {
        role: 'tool_result',
        tool_call_id: 't1',
        tool_name: 'echo',
        content: 'Tool call refused: no a today',
        is_error: true,
      },
      { role: 'tool_result', tool_call_id: 't2', tool_name: 'echo', content: 'echo: b', is_error: false },
    ]);
    // The refusal went back to the model.
    expect(JSON.stringify(provider.requests[1]!.messages)).toContain('Tool call refused: no a today');
    // And the host saw the call start and end like any other.
    expect(events.filter((e) => e.type === 'tool-execution-end').map((e) => e.type === 'tool-execution-end' && e.result.is_error)).toEqual([true, false]);
  });

  it('refuses the call when the hook throws or rejects (fail closed), and the step goes on', async () => {
    let calls = 0;
    const { agent, store } = guarded(async () => {
      calls++;
      if (calls === 1) throw new Error('policy file unreadable');
      return { type: 'allow' };
    });
    await agent.submitUserMessage('go');
    const result = await agent.runStep();
    expect(result.stopReason).toBe('end_turn');
    expect(store.batches[1]!.slice(1).map((r) => r.type === 'message' && r.message.role === 'tool_result' && r.message.content)).toEqual([
      'Tool call refused: the check before this call failed: policy file unreadable',
      'echo: b',
    ]);
  });

  it('ends the step on abort while the hook is still deciding', async () => {
    const controller = new AbortController();
    const { agent, store } = guarded(() => {
      controller.abort();
      return new Promise(() => {}); // a hook waiting for an answer that never comes
    });
    await agent.submitUserMessage('go');
    const result = await agent.runStep(undefined, { signal: controller.signal });
    expect(result.stopReason).toBe('aborted');
    expect(store.batches.map(roles)).toEqual([['user'], ['assistant', 'tool_result', 'tool_result']]);
  });

  it('does not consult the hook for an unknown tool', async () => {
    const seen: string[] = [];
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 'x', name: 'nope', input: {} }] }, { text: 'ok' }]);
    const agent = new Agent({ provider, beforeToolCall: (call) => void seen.push(call.name) });
    await agent.submitUserMessage('go');
    await agent.runStep();
    expect(seen).toEqual([]);
  });
});

describe('tools that break their contract', () => {
  it('turns a synchronous throw and an output that is not a ToolOutput into error results, never an unreadable record', async () => {
    const throwsAtOnce = {
      ...echoTool,
      name: 'sync',
      execute: (() => {
        throw new Error('boom');
      }) as Tool['execute'],
    };
    const returnsNothing = {
      ...echoTool,
      name: 'nothing',
      execute: (async () => undefined) as unknown as Tool['execute'],
    };
    const { agent, store } = setup(
      [
        {
          toolCalls: [
            { id: 'a', name: 'sync', input: {} },
            { id: 'b', name: 'nothing', input: {} },
          ],
        },
        { text: 'ok' },
      ],
      [throwsAtOnce, returnsNothing],
    );
    await agent.submitUserMessage('go');
    const result = await agent.runStep();
    expect(result.stopReason).toBe('end_turn');
    expect(store.batches[1]!.slice(1).map((r) => r.type === 'message' && r.message)).toEqual([
      { role: 'tool_result', tool_call_id: 'a', tool_name: 'sync', content: 'Tool sync failed: boom', is_error: true },
      {
        role: 'tool_result',
        tool_call_id: 'b',
        tool_name: 'nothing',
        content: 'Tool nothing failed: it returned undefined instead of a string or { content }',
        is_error: true,
      },
    ]);
  });
});

describe('tool output with images', () => {
  it('keeps the images a tool returned on its result, and drops what is not an image', async () => {
    const shot: Tool = {
      ...echoTool,
      name: 'shot',
      execute: async () => ({
        content: 'a picture',
        images: [{ type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' }, { type: 'text', text: 'not an image' } as never],
      }),
    };
    const { agent, store } = setup([{ toolCalls: [{ id: 'p', name: 'shot', input: {} }] }, { text: 'nice' }], [shot]);
    await agent.submitUserMessage('go');
    await agent.runStep();
    expect(store.batches[1]![1]).toMatchObject({
      message: {
        role: 'tool_result',
        content: 'a picture',
        is_error: false,
        images: [{ type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' }],
      },
    });
  });
});

describe('a provider whose tool call nests deeper than 128 levels', () => {
  /** A provider that calls `probe` with `input` (streamed whole), then answers "done". */
  class DeepProvider implements Provider {
    readonly name = 'deep';
    readonly model = 'deep-1';
    readonly seen: ProviderRequest[] = [];
    constructor(readonly input: { [key: string]: unknown }) {}
    async *stream(request: ProviderRequest): AsyncGenerator<ProviderEvent> {
      this.seen.push({ ...request, messages: [...request.messages] });
      if (this.seen.length > 1) {
        yield {
          type: 'message-end',
          message: {
            role: 'assistant',
            content: [{ type: 'text', text: 'done' }],
            provider: this.name,
            model: this.model,
            usage: usage(1, 1),
            stop_reason: 'end_turn',
          },
        };
        return;
      }
      const call = { type: 'tool_call' as const, id: 'c1', name: 'probe', input: this.input as never };
      yield { type: 'tool-call-start', index: 0, id: 'c1', name: 'probe' };
      yield { type: 'tool-call-end', index: 0, toolCall: call };
      yield {
        type: 'message-end',
        message: {
          role: 'assistant',
          content: [call],
          provider: this.name,
          model: this.model,
          usage: usage(1, 1),
          stop_reason: 'tool_use',
        },
      };
    }
  }
  const deep = (levels: number): { [key: string]: unknown } =>
    JSON.parse(`{"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`) as { [key: string]: unknown };

  it.each([5_000, 100_000])(
    'stores and emits the call with {} as its input at %i levels, and answers it with an error result the model sees',
    async (levels) => {
      const provider = new DeepProvider(deep(levels));
      let ran = false;
      const probe: Tool = {
        name: 'probe',
        description: 'p',
        input_schema: { type: 'object' },
        execute: async () => {
          ran = true;
          return 'ran';
        },
      };
      const store = new MemoryStore();
      const agent = new Agent({ provider, tools: new ToolRegistry([probe]) }, { store });
      const events: AgentEvent[] = [];
      await agent.submitUserMessage('go');
      const result = await agent.runStep((event) => events.push(event));
      expect(result).toMatchObject({ stopReason: 'end_turn', incomplete: false });
      expect(ran).toBe(false);
      expect(() => JSON.stringify(events)).not.toThrow();
      expect(() => JSON.stringify(store.entries)).not.toThrow();
      expect(store.entries[1]).toMatchObject({
        message: { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', input: {} }] },
      });
      expect(store.entries[2]).toMatchObject({
        message: {
          role: 'tool_result',
          is_error: true,
          content: expect.stringMatching(/^Tool call refused: its input is nested deeper than 128 levels/),
        },
      });
      expect(provider.seen[1]!.messages.at(-1)).toMatchObject({ role: 'tool_result', is_error: true });
    },
  );

  it('runs a call nested 128 levels deep as usual', async () => {
    const provider = new DeepProvider(deep(127));
    const probe: Tool = {
      name: 'probe',
      description: 'p',
      input_schema: { type: 'object' },
      execute: async () => 'ran',
    };
    const store = new MemoryStore();
    const agent = new Agent({ provider, tools: new ToolRegistry([probe]) }, { store });
    await agent.submitUserMessage('go');
    await agent.runStep();
    expect(store.entries[2]).toMatchObject({ message: { role: 'tool_result', content: 'ran', is_error: false } });
  });
});
