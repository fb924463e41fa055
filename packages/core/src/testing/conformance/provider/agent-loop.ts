import { expect, it } from 'vitest';
import { Agent } from '../../../agent/agent.js';
import type { Provider } from '../../../providers/provider.js';
import type { DiskMessage } from '../../../session/records.js';
import { ToolRegistry } from '../../../tool.js';
import { CapturingStore } from '../../capturing-store.js';
import type { FakeReply } from '../../fake-llm/types.js';
import { CLOCK_TOOL } from './request-mapping.js';
import type { ProviderSuite } from './suite.js';
import { ScriptedProvider, type ScriptedReply } from '../../scripted-provider.js';

/** The id of the suite's one tool call; it fits every wire, so it goes back unchanged. */
const AGENT_TOOL_CALL_ID = 'call_Clock01';

function clockTools(): ToolRegistry {
  return new ToolRegistry([{ ...CLOCK_TOOL, execute: async (input) => `12:00 in ${String(input.zone)}` }]);
}

/**
 * The same three replies, for the fake server and for the scripted provider: thinking, text
 * and a tool call; then text; then text. A wire whose thinking is unsigned keeps it with an
 * empty signature, so the scripted reply says so too.
 */
function replies(thinking: 'signed' | 'unsigned'): { fake: FakeReply; scripted: ScriptedReply }[] {
  return [
    {
      fake: {
        thinking: { thinking: 'I need the clock.', signature: 'sig-1==' },
        text: 'Let me check the clock.',
        toolCalls: [{ id: AGENT_TOOL_CALL_ID, name: 'clock', input: { zone: 'UTC' } }],
        usage: { input: 120, output: 30, cacheWrite: 100 },
      },
      scripted: {
        thinking: [{ thinking: 'I need the clock.', signature: thinking === 'signed' ? 'sig-1==' : '' }],
        text: 'Let me check the clock.',
        toolCalls: [{ id: AGENT_TOOL_CALL_ID, name: 'clock', input: { zone: 'UTC' } }],
        usage: { input_tokens: 120, output_tokens: 30, cache_write_tokens: 100 },
      },
    },
    {
      fake: { text: 'It is 12:00 in UTC.', usage: { input: 20, output: 8, cacheRead: 100 } },
      scripted: { text: 'It is 12:00 in UTC.', usage: { input_tokens: 20, output_tokens: 8, cache_read_tokens: 100 } },
    },
    {
      fake: { text: 'You are welcome.', usage: { input: 5, output: 4, cacheRead: 150 } },
      scripted: { text: 'You are welcome.', usage: { input_tokens: 5, output_tokens: 4, cache_read_tokens: 150 } },
    },
  ];
}

async function runTwoTurns(provider: Provider, store: CapturingStore): Promise<void> {
  const agent = new Agent({ provider, tools: clockTools() }, { store });
  await agent.addSystemMessage('You are a clock.', 'replace');
  await agent.submitUserMessage('What time is it in UTC?');
  expect((await agent.runStep()).stopReason).toBe('end_turn');
  await agent.submitUserMessage('Thanks!');
  expect((await agent.runStep()).stopReason).toBe('end_turn');
}

/** Records without what legitimately differs between providers: ids, timestamps, provider, model, raw stop reason. */
function comparable(records: DiskMessage[]): unknown[] {
  return records.map((record) => {
    if (record.type !== 'message') return record;
    const message: Record<string, unknown> = { ...record.message };
    for (const field of ['provider', 'model', 'raw_stop_reason']) delete message[field];
    return { type: record.type, message };
  });
}

/** The agent on the provider, over HTTP: what it persists, and what it sends back after a resume. */
export function describeAgentPersistenceContract({ harness, server, provider }: ProviderSuite): void {
  const { rawStopReasons } = harness.wire;

  it('persists the same messages the scripted provider would for a two-turn conversation with a tool call', async () => {
    const script = replies(harness.wire.thinking);
    for (const reply of script) server().enqueue(reply.fake);
    const overHTTP = new CapturingStore();
    await runTwoTurns(provider(), overHTTP);

    const scripted = new CapturingStore();
    await runTwoTurns(new ScriptedProvider(script.map((reply) => reply.scripted)), scripted);

    expect(overHTTP.records.map((record) => record.type === 'message' && record.message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool_result',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(comparable(overHTTP.records)).toEqual(comparable(scripted.records));
    expect(overHTTP.batches.map((batch) => batch.length)).toEqual(scripted.batches.map((batch) => batch.length));
    const assistants = overHTTP.records.flatMap((record) => (record.type === 'message' && record.message.role === 'assistant' ? [record.message] : []));
    expect(assistants.map((message) => [message.provider, message.model, message.raw_stop_reason])).toEqual([
      [harness.name, harness.model, rawStopReasons.toolUse],
      [harness.name, harness.model, rawStopReasons.endTurn],
      [harness.name, harness.model, rawStopReasons.endTurn],
    ]);
    expect(server().requests).toHaveLength(3);
  });

  it('sends a resumed conversation back byte for byte as the wire expects', async () => {
    for (const reply of replies(harness.wire.thinking)) server().enqueue(reply.fake);
    const store = new CapturingStore();
    await runTwoTurns(provider(), store);

    const { agent: resumed } = await Agent.resume(store, { provider: provider(), tools: clockTools() });
    await resumed.submitUserMessage('One more: Tokyo?');
    server().enqueue({ text: 'It is 21:00 in Tokyo.' });
    await resumed.runStep();

    const requests = server().requests;
    expect(requests).toHaveLength(4);
    expect(requests[3]?.rawBody).toBe(JSON.stringify(harness.agent.resumed));
    // The tool-loop request of the first turn carried the same prefix: resuming changed nothing.
    expect(requests[1]?.body).toMatchObject(harness.agent.toolLoop as Record<string, unknown>);
  });
}

/** The agent on the provider, over HTTP, when the stream drops or the run is aborted: the text so far is persisted. */
export function describeAgentFailureContract({ server, provider }: ProviderSuite): void {
  it('persists only the text that arrived, marked error, when the connection drops mid-message', async () => {
    server().enqueue({ text: 'The time is twelve o clock', dropAfterDeltas: 3 });
    const store = new CapturingStore();
    const agent = new Agent({ provider: provider(), tools: clockTools() }, { store });
    await agent.submitUserMessage('Time?');
    const result = await agent.runStep();
    expect(result).toMatchObject({
      stopReason: 'error',
      incomplete: true,
      error: { name: 'ProviderError', retryable: true },
    });
    const last = store.records[store.records.length - 1];
    expect(last?.type === 'message' && last.message).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'The time is' }],
      stop_reason: 'error',
    });
  });

  it('ends the step as aborted, persisting the text so far, when the run is aborted mid-stream', async () => {
    server().enqueue({ text: 'Counting slowly', hang: true });
    const store = new CapturingStore();
    const agent = new Agent({ provider: provider(), tools: clockTools() }, { store });
    await agent.submitUserMessage('Count.');
    const controller = new AbortController();
    const result = await agent.runStep(
      (event) => {
        if (event.type === 'text-delta') controller.abort();
      },
      { signal: controller.signal },
    );
    expect(result).toMatchObject({ stopReason: 'aborted', incomplete: true });
    const last = store.records[store.records.length - 1];
    expect(last?.type === 'message' && last.message).toMatchObject({
      content: [{ type: 'text', text: 'Counting' }],
      stop_reason: 'aborted',
    });
  });
}
