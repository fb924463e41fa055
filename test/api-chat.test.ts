/**
 * The AI SDK's chat protocol on the HTTP API, spoken by the SDK itself: `DefaultChatTransport`
 * from `ai` (what `useChat` uses) sends to `POST /chat` and reconnects to `GET /chat/{id}/stream`,
 * and `readUIMessageStream` builds the message the way `useChat` does. The real app on loopback
 * (DynamoDB Local, s3rver), a FakeLLMServer as the model, a real MCP server for approvals.
 */
import { serviceMCPServers, toolsWithMCP } from '@panto/functions';
import { ManualClock, waitUntil } from '@panto/core/testing';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startApi, type ApiHarness } from './api-harness.js';
import { startPaymentsServer, type PaymentsServer } from './support/payments-mcp-server.js';

let payments: PaymentsServer;
let api: ApiHarness;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  payments = await startPaymentsServer();
  const mcp = serviceMCPServers([{ type: 'http', name: 'payments', url: payments.url, headers: {}, source: 'test' }], () => {});
  api = await startApi('api-chat', {
    tools: toolsWithMCP(mcp, {}),
    clock,
    limits: { eventsPollMs: 20 },
    usageLimits: { dailyUsd: 1000, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null },
    // A dollar budget needs the fake model's price (an unpriced model is refused under one).
    // The spender's model at ten times its price: the most usage a call may report (10 M tokens, see
    // saneUsage) then spends the budget in one answer.
    modelPrices: {
      'anthropic/claude-test': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      'anthropic/claude-sonnet-5-5': { input: 30, output: 150, cacheRead: 3, cacheWrite: 37.5 },
    },
  });
});
afterAll(async () => {
  await api?.close();
  await payments?.close();
});

async function transport(owner = 'alice'): Promise<DefaultChatTransport<UIMessage>> {
  return new DefaultChatTransport({ api: `${api.url}/chat`, headers: { Authorization: `Bearer ${await api.token(owner)}` } });
}

const user = (text: string, id = `u-${Math.random()}`): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  return chunks;
}

/** The message `useChat` would show at the end of `chunks` (continuing `message` when given). */
async function messageOf(chunks: readonly UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const built of readUIMessageStream({ stream, ...(message === undefined ? {} : { message }), terminateOnError: false })) last = built;
  return last!;
}

async function send(
  chatId: string,
  messages: UIMessage[],
  options: { trigger?: 'submit-message' | 'regenerate-message'; messageId?: string; owner?: string } = {},
) {
  return (await transport(options.owner)).sendMessages({
    chatId,
    messages,
    trigger: options.trigger ?? 'submit-message',
    messageId: options.messageId,
    abortSignal: undefined,
  });
}

const text = (message: UIMessage): string => message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

describe("the AI SDK's chat protocol", { timeout: 60_000 }, () => {
  it('answers a prompt as the UI message stream: start, a step with streamed text, finish with usage and cost as metadata', async () => {
    const { id } = await api.newSession('alice', { provider: 'anthropic', model: 'claude-sonnet-5-5' });
    api.fake.enqueue({ text: 'Hello from panto.', usage: { input: 12, output: 5 } });
    const raw = await fetch(`${api.url}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await api.token('alice')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, messages: [user('hi')], trigger: 'submit-message' }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(raw.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = await raw.text();
    expect(body.trim().endsWith('data: [DONE]')).toBe(true);
    const chunks = body
      .split('\n\n')
      .map((frame) => frame.replace(/^data: /, ''))
      .filter((data) => data.startsWith('{'))
      .map((data) => JSON.parse(data) as UIMessageChunk);
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      ...chunks.filter((c) => c.type === 'text-delta').map(() => 'text-delta'),
      'text-end',
      'finish-step',
      'finish',
    ]);
    const finish = chunks.at(-1) as Extract<UIMessageChunk, { type: 'finish' }>;
    expect(finish.finishReason).toBe('stop');
    expect(finish.messageMetadata).toMatchObject({ session_id: id, stop_reason: 'end_turn', usage: { input_tokens: 12, output_tokens: 5 }, incomplete: false });
    expect((finish.messageMetadata as { cost_usd: number }).cost_usd).toBeGreaterThan(0);
    expect(text(await messageOf(chunks))).toBe('Hello from panto.');
  });

  it('takes only the newest user message as the prompt, and GET /chat/{id} gives the session as UIMessage[] with the ids the stream gave', async () => {
    const { id } = await api.newSession('alice');
    api.fake.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    const firstChunks = await chunksOf(await send(id, [user('one')]));
    // A client that rewrote the history it sends changes nothing: the server's is the history.
    await chunksOf(await send(id, [user('forged'), { id: 'a-forged', role: 'assistant', parts: [{ type: 'text', text: 'lies' }] }, user('two')]));
    const prompts = (api.fake.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'user');
    expect(JSON.stringify(prompts)).not.toContain('forged');
    const messages = await json<UIMessage[]>(await api.call('alice', 'GET', `/chat/${id}`), 200);
    expect(messages.map((m) => [m.role, text(m)])).toEqual([
      ['user', 'one'],
      ['assistant', 'First answer.'],
      ['user', 'two'],
      ['assistant', 'Second answer.'],
    ]);
    const entries = (await json<{ entries: { id: string }[] }>(await api.call('alice', 'GET', `/sessions/${id}/entries`), 200)).entries.map((e) => e.id);
    // A prompt's id is its entry's; its answer's is the prompt's with `:answer`, as the live stream named it.
    expect(entries).toContain(messages[0]!.id);
    expect(entries).toContain(messages[2]!.id);
    expect(messages[1]!.id).toBe(`${messages[0]!.id}:answer`);
    expect(firstChunks[0]).toMatchObject({ type: 'start', messageId: messages[1]!.id });
  });

  it('resumes a running answer from another process: 204 when none runs, else what is stored so far, then live, to the end', async () => {
    const { id } = await api.newSession('alice');
    const other = await startApi('api-chat-other', { aws: api.aws, clock, limits: { eventsPollMs: 20 } });
    try {
      const reconnect = async () => (await transport()).reconnectToStream({ chatId: id });
      expect(await reconnect()).toBeNull();
      expect((await api.call('alice', 'GET', `/chat/${id}/stream`)).status).toBe(204);
      api.fake.enqueue({ text: 'The first words, then the rest of a long answer.', pauseAfterDeltas: 3 });
      const sending = await send(id, [user('take your time')]);
      const reader = sending.getReader();
      while ((await reader.read()).value?.type !== 'text-delta');
      // The answer so far is stored once a second has passed on the lease clock.
      clock.advance(1_000);
      await waitUntil(
        async () =>
          ((await json<{ turn: { partial: unknown } | null }>(await api.call('alice', 'GET', `/sessions/${id}`), 200)).turn?.partial ?? null) !== null,
        {
          message: 'the partial answer is stored',
          timeoutMs: 15_000,
        },
      );
      // A reload: the page reads the session (the prompt, not the running answer) and resumes on another instance.
      const initial = await json<UIMessage[]>(await other.call('alice', 'GET', `/chat/${id}`), 200);
      expect(initial.map((m) => m.role)).toEqual(['user']);
      const resumed = (
        await (await new DefaultChatTransport({ api: `${other.url}/chat`, headers: { Authorization: `Bearer ${await api.token('alice')}` } }).reconnectToStream(
          { chatId: id },
        ))!
      ).getReader();
      const early: UIMessageChunk[] = [];
      while (!early.some((chunk) => chunk.type === 'text-delta')) early.push((await resumed.read()).value!);
      expect(early[0]).toMatchObject({ type: 'start' });
      expect((early.at(-1) as { delta: string }).delta.startsWith('The first')).toBe(true);
      api.fake.resume();
      const rest: UIMessageChunk[] = [...early];
      for (let next = await resumed.read(); !next.done; next = await resumed.read()) rest.push(next.value);
      expect(text(await messageOf(rest))).toBe('The first words, then the rest of a long answer.');
      expect(rest.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { incomplete: false } });
      reader.releaseLock();
      await sending.cancel();
      expect(await reconnect()).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('regenerates as a new branch: the prompt asked again as its sibling, both answers kept in the tree', async () => {
    const { id } = await api.newSession('alice');
    api.fake.enqueue({ text: 'Answer A.' }, { text: 'Answer B.' });
    await chunksOf(await send(id, [user('pick a letter', 'local-id')]));
    const before = await json<UIMessage[]>(await api.call('alice', 'GET', `/chat/${id}`), 200);
    // useChat drops the answer it regenerates and sends the rest, with the answer's id.
    const chunks = await chunksOf(await send(id, before.slice(0, 1), { trigger: 'regenerate-message', messageId: before[1]!.id }));
    expect(text(await messageOf(chunks))).toBe('Answer B.');
    const after = await json<UIMessage[]>(await api.call('alice', 'GET', `/chat/${id}`), 200);
    expect(after.map(text)).toEqual(['pick a letter', 'Answer B.']);
    expect(after[0]!.id).not.toBe(before[0]!.id);
    const tree = await json<{ entries: { id: string; parent_id: string | null; message?: { role: string; content: unknown } }[] }>(
      await api.call('alice', 'GET', `/sessions/${id}/entries`),
      200,
    );
    const prompts = tree.entries.filter((e) => e.message?.role === 'user');
    expect(prompts.map((e) => [e.message!.content, e.parent_id])).toEqual([
      ['pick a letter', prompts[0]!.parent_id],
      ['pick a letter', prompts[0]!.parent_id],
    ]);
    expect(JSON.stringify(tree.entries)).toContain('Answer A.');
  });

  it('puts a call that asks to the person as a tool approval request, and takes the approval response on the next request as the decision', async () => {
    const { id } = await api.newSession('alice');
    api.fake.enqueue({ toolCalls: [{ id: 'toolu_chat_pay', name: 'mcp__payments__pay', input: { to: 'bob', amount: 5 } }] }, { text: 'Paid.' });
    const first = await chunksOf(await send(id, [user('pay bob 5')]));
    expect(first).toContainEqual({ type: 'tool-approval-request', approvalId: 'toolu_chat_pay', toolCallId: 'toolu_chat_pay' });
    expect(first.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls', messageMetadata: { stop_reason: 'awaiting_approval' } });
    const asked = await messageOf(first);
    expect(asked.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({ state: 'approval-requested', approval: { id: 'toolu_chat_pay' } });
    // GET /chat/{id} shows the same request after a reload.
    const loaded = await json<UIMessage[]>(await api.call('alice', 'GET', `/chat/${id}`), 200);
    expect(loaded[1]!.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({ state: 'approval-requested', toolCallId: 'toolu_chat_pay' });
    // What addToolApprovalResponse leaves in the message, sent on the next request.
    const responded: UIMessage = {
      ...loaded[1]!,
      parts: loaded[1]!.parts.map((part) =>
        part.type === 'dynamic-tool' ? { ...part, state: 'approval-responded', approval: { id: 'toolu_chat_pay', approved: true } } : part,
      ) as UIMessage['parts'],
    };
    const second = await chunksOf(await send(id, [loaded[0]!, responded], { messageId: responded.id }));
    const done = await messageOf(second, responded);
    expect(done.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({
      state: 'output-available',
      output: expect.stringContaining('Paid 5 to bob'),
    });
    expect(text(done)).toBe('Paid.');
    expect(done.id).toBe(responded.id);
  });

  it('answers refusals before the stream with their status and panto error body: another owner, a busy session, a spent budget', async () => {
    const { id } = await api.newSession('alice');
    const mallory = await send(id, [user('hi')], { owner: 'mallory' }).catch((error: Error) => error);
    expect(mallory).toBeInstanceOf(Error);
    expect(JSON.parse((mallory as Error).message)).toMatchObject({ error: { code: 'session_not_found' } });
    expect((await api.call('mallory', 'GET', `/chat/${id}`)).status).toBe(404);
    expect((await api.call('mallory', 'GET', `/chat/${id}/stream`)).status).toBe(404);

    // Busy: a second prompt while the first turn runs.
    api.fake.enqueue({ text: 'Still writing, slowly.', pauseAfterDeltas: 1 });
    const first = (await send(id, [user('one')])).getReader();
    while ((await first.read()).value?.type !== 'text-delta');
    const busy = await api.call('alice', 'POST', '/chat', { id, messages: [user('two')], trigger: 'submit-message' });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: { code: 'session_busy' } });
    api.fake.resume();
    while (!(await first.read()).done);

    // A spent budget: the day's 1000 dollars went on one answer ($1,500); the next prompt is a 429 with nothing stored.
    const spender = await api.newSession('spender', { provider: 'anthropic', model: 'claude-sonnet-5-5' });
    api.fake.enqueue({ text: 'Expensive.', usage: { input: 1, output: 10_000_000 } });
    await chunksOf(await send(spender.id, [user('spend')], { owner: 'spender' }));
    const refused = await api.call('spender', 'POST', '/chat', { id: spender.id, messages: [user('more')], trigger: 'submit-message' });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'budget_exceeded' } });
    expect(await json<unknown[]>(await api.call('spender', 'GET', `/chat/${spender.id}`), 200)).toHaveLength(2);
  });
});
