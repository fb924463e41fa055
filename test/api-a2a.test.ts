/**
 * A2A on the service, driven by `@a2a-js/sdk`'s own client (JSON-RPC, A2A v1.0) against the app
 * on loopback (DynamoDB Local, s3rver, a fake model behind the real Anthropic SDK, a payments MCP
 * server whose `pay` asks for approval): the card, a send, a stream, a second message in the
 * same context, cancel, input-required and its answer, another owner refused — and a task
 * read by another app on the same table (another Lambda instance).
 */
import { type StreamResponse, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { ManualClock, waitUntil } from '@panto/core/testing';
import { MCPServers } from '@panto/core/mcp';
import { DEFAULT_SERVICE_LIMITS, SERVICE_MCP_OPTIONS, toolsWithMCP } from '@panto/functions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, answerOf, send, textOf, userMessage } from './a2a-harness.js';
import { json, startApi, type ApiHarness } from './api-harness.js';
import { startPaymentsServer, type PaymentsServer } from './support/payments-mcp-server.js';

const WAIT_MS = 15_000;
let payments: PaymentsServer;
let clock: ManualClock;
let api: ApiHarness;
let alice: Client;

function tools() {
  const servers = new MCPServers([{ type: 'http', name: 'payments', url: payments.url, headers: {}, source: 'test' }], {
    ...SERVICE_MCP_OPTIONS,
    connectTimeoutMs: 30_000,
    sdk: () => import('@panto/core/mcp/sdk'),
  });
  return toolsWithMCP(servers, {});
}

beforeAll(async () => {
  payments = await startPaymentsServer();
  clock = new ManualClock(Date.now());
  api = await startApi('api-a2a', { tools: tools(), clock, limits: { eventsPollMs: 20 } });
  alice = await a2aClient(api.url, await api.token('alice'));
});
afterEach(() => api.fake.resume());
afterAll(async () => {
  await api?.close();
  await payments?.close();
});

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The service's own code, status and Retry-After that a JSON-RPC error carries (its ErrorInfo's metadata). */
const metadataOf = (error: unknown) => ((error as { data?: { metadata?: Record<string, string> }[] }).data ?? [])[0]?.metadata;

const kinds = (events: StreamResponse[]) => events.map((event) => event.payload?.$case);
const finalState = (events: StreamResponse[]) => {
  const last = events.at(-1)?.payload;
  return last?.$case === 'statusUpdate' ? last.value.status?.state : undefined;
};

describe('the Agent Card', () => {
  it('is public, names the JSON-RPC interface of this server, its skill, the models offered and the bearer scheme', async () => {
    const response = await fetch(`${api.url}/.well-known/agent-card.json`);
    const card = await json<{
      name: string;
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
      capabilities: { streaming: boolean; extensions: { uri: string; params: { default: string; models: string[] } }[] };
      securitySchemes: Record<string, { httpAuthSecurityScheme?: { scheme: string; bearerFormat: string } }>;
      securityRequirements: unknown[];
      skills: { id: string }[];
    }>(response, 200);
    expect(card.name).toBe('panto');
    expect(card.supportedInterfaces).toEqual([{ url: `${api.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    expect(card.capabilities.streaming).toBe(true);
    expect(card.capabilities.extensions[0]?.params.default).toBe('anthropic/claude-test');
    expect(card.capabilities.extensions[0]?.params.models).toContain('anthropic/claude-test');
    expect(card.securitySchemes.bearer?.httpAuthSecurityScheme).toMatchObject({ scheme: 'Bearer', bearerFormat: 'JWT' });
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]); // no scopes (proto JSON leaves the empty list out)
    expect(card.skills.map((skill) => skill.id)).toEqual(['session-turn']);
    // The SDK's client reads it and picks the interface.
    expect((await alice.getAgentCard()).supportedInterfaces[0]?.url).toBe(`${api.url}/a2a`);
  });
});

describe('SendMessage and GetTask', { timeout: 60_000 }, () => {
  it('answers a message in a new context with a completed task: a new session, the answer as artifact, and GetTask reads the same', async () => {
    api.fake.enqueue({ text: 'Hello from panto.' });
    const task = await send(alice, userMessage('Say hello'));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBe('Hello from panto.');
    expect(task.history.map(textOf)).toEqual(['Say hello', 'Hello from panto.']);
    // The context is a session of alice's, the task its turn: the prompt entry's id.
    const session = await json<{ messages: { id: string; role: string }[] }>(await api.call('alice', 'GET', `/sessions/${task.contextId}`), 200);
    expect(task.id).toBe(`${task.contextId}~${session.messages[0]!.id}`);
    expect(await alice.getTask({ tenant: '', id: task.id, historyLength: undefined })).toEqual(task);
  });

  it('continues a context: the second message sees the first and its answer', async () => {
    api.fake.enqueue({ text: 'Noted: the code is 4711.' }, { text: 'It was 4711.' });
    const first = await send(alice, userMessage('Remember the code 4711'));
    const second = await send(alice, userMessage('What was the code?', { contextId: first.contextId }));
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(answerOf(second)).toBe('It was 4711.');
    const sent = JSON.stringify(api.fake.requests.at(-1)?.body);
    expect(sent).toContain('Remember the code 4711');
    expect(sent).toContain('Noted: the code is 4711.');
    // Each task keeps its own turn.
    expect(answerOf(await alice.getTask({ tenant: '', id: first.id, historyLength: undefined }))).toBe('Noted: the code is 4711.');
  });

  it('runs a retried send (the same messageId) once, answering the first task again', async () => {
    api.fake.enqueue({ text: 'Once.' });
    const message = userMessage('Only once');
    const before = api.fake.requests.length;
    const first = await send(alice, message);
    const again = await send(alice, message);
    expect(again).toEqual(first);
    expect(api.fake.requests.length - before).toBe(1);
  });

  it('marks a task whose model call failed as failed, saying why', async () => {
    api.fake.enqueueRaw({ status: 400, body: JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'bad' } }) });
    const task = await send(alice, userMessage('Fail please'));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(task.status?.message)).not.toBe('');
  });
});

describe('SendStreamingMessage', { timeout: 60_000 }, () => {
  it('streams the task: the task first, the answer in chunks, the whole answer, then completed', async () => {
    api.fake.enqueue({ text: 'one two three' });
    const events = await collect(alice.sendMessageStream({ tenant: '', message: userMessage('Count'), configuration: undefined, metadata: undefined }));
    const first = events[0]?.payload;
    expect(first?.$case).toBe('task');
    const task = first?.$case === 'task' ? first.value : undefined;
    expect(task?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(
      kinds(events)
        .slice(1, -2)
        .every((kind) => kind === 'artifactUpdate'),
    ).toBe(true);
    const chunks = events.flatMap((event) =>
      event.payload?.$case === 'artifactUpdate' && event.payload.value.append ? [answerOf({ artifacts: [event.payload.value.artifact!] } as never)] : [],
    );
    expect(chunks.join('')).toBe('one two three');
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(await alice.getTask({ tenant: '', id: task!.id, historyLength: undefined }))).toBe('one two three');
  });

  it('cancels a running task: the stop reaches the turn, it ends canceled with what it wrote, and both streams say so', async () => {
    api.fake.enqueue({ text: 'one two three four', pauseAfterDeltas: 1 });
    const stream = alice.sendMessageStream({ tenant: '', message: userMessage('A long story'), configuration: undefined, metadata: undefined });
    const first = (await stream.next()).value as StreamResponse;
    const taskId = first.payload?.$case === 'task' ? first.payload.value.id : '';
    await stream.next(); // the first chunk: the model is writing
    // Another connection subscribes to it, and another one cancels it.
    const follower = collect(alice.resubscribeTask({ tenant: '', id: taskId }));
    const canceled = alice.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    const contextId = taskId.split('~')[0]!;
    await waitUntil(
      async () =>
        (await json<{ turn: { stop_requested: boolean } | null }>(await api.call('alice', 'GET', `/sessions/${contextId}`), 200)).turn?.stop_requested === true,
      {
        message: 'the stop was requested',
        timeoutMs: WAIT_MS,
      },
    );
    clock.advance(DEFAULT_SERVICE_LIMITS.leaseRenewMs);
    const task = await canceled;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(answerOf(task)).toBe('one');
    const rest: StreamResponse[] = [];
    for await (const event of stream) rest.push(event);
    expect(finalState(rest)).toBe(TaskState.TASK_STATE_CANCELED);
    expect(finalState(await follower)).toBe(TaskState.TASK_STATE_CANCELED);
    // An ended task cannot be canceled again.
    await expect(alice.cancelTask({ tenant: '', id: taskId, metadata: undefined })).rejects.toBeInstanceOf(Error);
  });
});

describe('input-required: a tool call that asks for approval', { timeout: 90_000 }, () => {
  async function pausedTask(): Promise<{ taskId: string; contextId: string; call: string }> {
    const call = `toolu_pay_${Date.now()}`;
    api.fake.enqueue({ toolCalls: [{ id: call, name: 'mcp__payments__pay', input: { to: 'bob', amount: 5 } }] });
    const task = await send(alice, userMessage('Pay bob 5'));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const data = task.status?.message?.parts.find((part) => part.content?.$case === 'data')?.content;
    expect(data?.$case === 'data' ? data.value : undefined).toMatchObject({
      pending_approvals: [{ tool_call_id: call, tool: 'mcp__payments__pay', input: { to: 'bob', amount: 5 } }],
    });
    expect(textOf(task.status?.message)).toContain('mcp__payments__pay');
    return { taskId: task.id, contextId: task.contextId, call };
  }

  it('pauses the task in input-required; "approve" in the same task runs the call once and completes it', async () => {
    const { taskId, contextId } = await pausedTask();
    const paid = payments.payments.length;
    expect(payments.payCalls()).toBe(paid);
    // A new prompt in the context while the call waits is refused, and changes nothing.
    await expect(send(alice, userMessage('Something else', { contextId }))).rejects.toBeInstanceOf(UnsupportedOperationError);
    api.fake.enqueue({ text: 'Paid bob 5.' });
    const done = await send(alice, userMessage('approve', { taskId, contextId }));
    expect(done.id).toBe(taskId);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(done)).toBe('Paid bob 5.');
    expect(payments.payments.length).toBe(paid + 1);
    // The task has ended: another message in it is refused.
    await expect(send(alice, userMessage('approve', { taskId }))).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('takes decisions as a data part, streamed: a denial the model is told of, and the call never runs', async () => {
    const { taskId, call } = await pausedTask();
    const calls = payments.payCalls();
    api.fake.enqueue({ text: 'I did not pay.' });
    const events = await collect(
      alice.sendMessageStream({
        tenant: '',
        message: userMessage(null, { taskId }, { decisions: [{ tool_call_id: call, decision: 'deny', reason: 'bob was paid' }] }),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    expect(events[0]?.payload?.$case === 'task' ? events[0].payload.value.id : '').toBe(taskId);
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(payments.payCalls()).toBe(calls);
    expect(JSON.stringify(api.fake.requests.at(-1)?.body)).toContain('Tool call denied: bob was paid');
  });

  it('refuses an answer that is neither approve nor deny, and leaves the task waiting', async () => {
    const { taskId } = await pausedTask();
    await expect(send(alice, userMessage('maybe later', { taskId }))).rejects.toThrow(/approve/);
    expect((await alice.getTask({ tenant: '', id: taskId, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });
});

describe('owners and processes', { timeout: 60_000 }, () => {
  it("refuses another owner's task and context as not found, and changes nothing", async () => {
    api.fake.enqueue({ text: 'Private.' });
    const task = await send(alice, userMessage('A secret'));
    const bob = await a2aClient(api.url, await api.token('bob'));
    await expect(bob.getTask({ tenant: '', id: task.id, historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(bob.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(send(bob, userMessage('approve', { taskId: task.id }))).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(send(bob, userMessage('And mine?', { contextId: task.contextId }))).rejects.toBeInstanceOf(TaskNotFoundError);
    expect((await alice.getTask({ tenant: '', id: task.id, historyLength: undefined })).history).toHaveLength(2);
  });

  it('holds the lease and the limits as every route: a message while a turn runs is busy, one over the rate limit refused, neither stored, and a new context refused leaves no session', async () => {
    api.fake.enqueue({ text: 'one two three', pauseAfterDeltas: 1 });
    const stream = alice.sendMessageStream({ tenant: '', message: userMessage('Busy now'), configuration: undefined, metadata: undefined });
    const first = (await stream.next()).value as StreamResponse;
    const contextId = first.payload?.$case === 'task' ? first.payload.value.contextId : '';
    await stream.next();
    const busy = await send(alice, userMessage('Me too', { contextId })).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(UnsupportedOperationError);
    expect(metadataOf(busy)).toMatchObject({ code: 'session_busy', status: '409' });
    api.fake.resume();
    for await (const _ of stream) {
      // drained: the turn ends
    }
    const limited = await startApi('api-a2a-limits', {
      aws: api.aws,
      usageLimits: { dailyUsd: null, monthlyUsd: null, turnsPerMinute: 1, concurrentTurns: null },
    });
    try {
      const client = await a2aClient(limited.url, await limited.token('carol'));
      limited.fake.enqueue({ text: 'First.' });
      const task = await send(client, userMessage('One'));
      const refused = await send(client, userMessage('Two', { contextId: task.contextId })).catch((error: unknown) => error);
      expect(metadataOf(refused)).toMatchObject({ code: 'rate_limited', status: '429', retry_after: expect.any(String) });
      expect((await client.getTask({ tenant: '', id: task.id, historyLength: undefined })).history).toHaveLength(2);
      const session = await json<{ messages: unknown[] }>(await limited.call('carol', 'GET', `/sessions/${task.contextId}`), 200);
      expect(session.messages).toHaveLength(2);
      // A new context refused leaves no session behind: the list is what it was.
      const listed = async () => (await json<{ sessions: unknown[] }>(await limited.call('carol', 'GET', '/sessions'), 200)).sessions.length;
      const before = await listed();
      const fresh = await send(client, userMessage('Three')).catch((error: unknown) => error);
      expect(metadataOf(fresh)).toMatchObject({ code: 'rate_limited', status: '429' });
      const streamed = client.sendMessageStream({ tenant: '', message: userMessage('Four'), configuration: undefined, metadata: undefined });
      expect(metadataOf(await streamed.next().catch((error: unknown) => error))).toMatchObject({ code: 'rate_limited' });
      expect(await listed()).toBe(before);
    } finally {
      await limited.close();
    }
  });

  it('reads a task another process ran: tasks live in the session, not in the process', async () => {
    api.fake.enqueue({ text: 'Stored.' });
    const task = await send(alice, userMessage('Keep this'));
    const other = await startApi('api-a2a-other', { aws: api.aws, clock });
    try {
      const elsewhere = await a2aClient(other.url, await other.token('alice'));
      expect(await elsewhere.getTask({ tenant: '', id: task.id, historyLength: undefined })).toEqual(task);
    } finally {
      await other.close();
    }
  });
});
