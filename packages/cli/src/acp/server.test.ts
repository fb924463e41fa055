import { client, type ClientContext, type PromptResponse, type SessionNotification } from '@agentclientprotocol/sdk';
import { emptyUsage, type AgentEvent, type StopReason } from '@panto/core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ACPHost, HostedSession, HostedSessionRequest, HostedTurnResult } from './host.js';
import { createACPServer } from './server.js';

/** A host whose turns send `events`, then end as `ending` says (or wait for the abort). */
class FakeHost implements ACPHost {
  readonly started: HostedSessionRequest[] = [];
  readonly prompts: string[] = [];
  events: AgentEvent[] = [];
  ending: { stopReason: StopReason; incomplete?: boolean; error?: Error } | 'wait-for-abort' = { stopReason: 'end_turn' };
  readonly logged: string[] = [];
  /** How long a start takes (ms): long enough for a second request to arrive meanwhile. */
  startDelay = 0;

  async start(request: HostedSessionRequest): Promise<HostedSession> {
    this.started.push(request);
    if (this.startDelay > 0) await new Promise((resolve) => setTimeout(resolve, this.startDelay));
    const host = this;
    return {
      sessionId: request.sessionId ?? `0197a000-0000-7000-8000-00000000000${this.started.length}`,
      cwd: request.cwd,
      danglingUser: null,
      messages: () => [],
      async turn(text, { observe, signal }): Promise<HostedTurnResult> {
        host.prompts.push(text);
        const receiver = observe('p1');
        for (const event of host.events) receiver(event);
        const ending = host.ending;
        if (ending === 'wait-for-abort') await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        const stop = ending === 'wait-for-abort' ? { stopReason: 'aborted' as const } : ending;
        return { promptId: 'p1', messages: [], usage: emptyUsage(), providerCalls: 1, incomplete: false, ...stop };
      },
      close: async () => undefined,
    };
  }

  readonly listed: (string | undefined)[] = [];

  async list(cwd: string | undefined) {
    this.listed.push(cwd);
    return [{ sessionId: '0197a000-0000-7000-8000-000000000009', cwd: cwd ?? '/elsewhere', title: 'fix the tests', updatedAt: '2026-12-06T10:00:00.000Z' }];
  }

  log(line: string): void {
    this.logged.push(line);
  }
}

let cwd: string;
let host: FakeHost;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'panto-acp-server-'));
  host = new FakeHost();
});
afterEach(async () => rm(cwd, { recursive: true, force: true }));

/** Runs `op` as an ACP client connected in process to a server on `host`; returns what it returned and the updates it got. */
async function withClient<T>(
  op: (agent: ClientContext, updates: readonly SessionNotification[]) => Promise<T>,
): Promise<{ value: T; updates: SessionNotification[] }> {
  const server = createACPServer(host, '9.9.9');
  const updates: SessionNotification[] = [];
  const app = client({ name: 'test' }).onNotification('session/update', ({ params }) => void updates.push(params));
  try {
    const value = await app.connectWith(server.app, (agent) => op(agent, updates));
    return { value, updates };
  } finally {
    await server.closeAll();
  }
}

const text = (value: string) => [{ type: 'text' as const, text: value }];

describe('the ACP server', () => {
  it('answers initialize with protocol version 1 and its capabilities, whatever version the client speaks', async () => {
    const { value } = await withClient((agent) => agent.request('initialize', { protocolVersion: 99 }));
    expect(value).toEqual({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: false },
        sessionCapabilities: { list: {}, resume: {}, close: {} },
      },
      agentInfo: { name: 'panto', title: 'panto', version: '9.9.9' },
      authMethods: [],
    });
  });

  it('refuses session/new for a relative cwd, a folder that is not there, and an SSE server — and starts nothing', async () => {
    await withClient(async (agent) => {
      await expect(agent.request('session/new', { cwd: 'relative', mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
      await expect(agent.request('session/new', { cwd: join(cwd, 'missing'), mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
      await expect(agent.request('session/new', { cwd, mcpServers: [{ type: 'sse', name: 's', url: 'https://x', headers: [] }] })).rejects.toMatchObject({
        code: -32602,
      });
    });
    expect(host.started).toEqual([]);
  });

  it('sends every update of a turn before its response, in order', async () => {
    host.events = [
      { type: 'text-delta', index: 0, delta: 'Hel' },
      { type: 'thinking-delta', index: 1, delta: 'hmm' },
      { type: 'text-delta', index: 0, delta: 'lo' },
    ];
    const { value, updates } = await withClient(async (agent, received) => {
      const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
      const response = await agent.request('session/prompt', { sessionId, prompt: text('hi') });
      return { response, seen: received.length };
    });
    expect(value.response).toMatchObject({ stopReason: 'end_turn', _meta: { panto: { prompt_id: 'p1' } } });
    expect(value.seen).toBe(3);
    expect(updates.map(({ update }) => update)).toEqual([
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hel' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'lo' } },
    ]);
  });

  it.each([
    [{ stopReason: 'max_tokens' as const }, 'max_tokens'],
    [{ stopReason: 'refusal' as const }, 'refusal'],
    [{ stopReason: 'tool_use' as const, incomplete: true }, 'max_turn_requests'],
    [{ stopReason: 'stop_sequence' as const }, 'end_turn'],
  ])('maps a turn that ended %j to %s', async (ending, stopReason) => {
    host.ending = ending;
    const { value } = await withClient(async (agent): Promise<PromptResponse> => {
      const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
      return agent.request('session/prompt', { sessionId, prompt: text('hi') });
    });
    expect(value.stopReason).toBe(stopReason);
  });

  it('answers a failed turn with an error naming the failure, not a stop reason', async () => {
    host.ending = { stopReason: 'error', error: new Error('429 rate limited') };
    await withClient(async (agent) => {
      const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
      await expect(agent.request('session/prompt', { sessionId, prompt: text('hi') })).rejects.toMatchObject({
        code: -32603,
        message: 'the model call failed: 429 rate limited (what the turn said so far is kept)',
      });
    });
  });

  it('refuses a second prompt, and a load, while one runs; session/cancel ends the first cancelled', async () => {
    host.ending = 'wait-for-abort';
    await withClient(async (agent) => {
      const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
      const first = agent.request('session/prompt', { sessionId, prompt: text('one') });
      while (host.prompts.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      await expect(agent.request('session/prompt', { sessionId, prompt: text('two') })).rejects.toMatchObject({ code: -32600 });
      await expect(agent.request('session/load', { sessionId, cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32600 });
      await agent.notify('session/cancel', { sessionId });
      expect(await first).toMatchObject({ stopReason: 'cancelled' });
    });
    expect(host.prompts).toEqual(['one']);
  });

  it('refuses a prompt with content panto does not take before anything is stored', async () => {
    await withClient(async (agent) => {
      const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
      await expect(agent.request('session/prompt', { sessionId, prompt: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] })).rejects.toMatchObject({
        code: -32602,
      });
    });
    expect(host.prompts).toEqual([]);
  });

  it('loads a session open in this process by replaying it, without starting it again; a cancel of an unknown session is ignored', async () => {
    await withClient(async (agent) => {
      const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
      await agent.notify('session/cancel', { sessionId: 'nobody' });
      expect(await agent.request('session/load', { sessionId, cwd, mcpServers: [] })).toEqual({});
    });
    expect(host.started).toHaveLength(1);
  });

  it("session/list gives the host's sessions of a folder or of all, and refuses a cursor it never gave and a relative cwd", async () => {
    await withClient(async (agent) => {
      expect(await agent.request('session/list', { cwd })).toEqual({
        sessions: [{ sessionId: '0197a000-0000-7000-8000-000000000009', cwd, title: 'fix the tests', updatedAt: '2026-12-06T10:00:00.000Z' }],
      });
      await agent.request('session/list', {});
      await expect(agent.request('session/list', { cursor: 'next' })).rejects.toMatchObject({ code: -32602 });
      await expect(agent.request('session/list', { cwd: 'rel' })).rejects.toMatchObject({ code: -32602 });
    });
    expect(host.listed).toEqual([cwd, undefined]);
  });

  it('session/close cancels the running prompt, waits for it, and forgets the session', async () => {
    host.ending = 'wait-for-abort';
    await withClient(async (agent) => {
      const { sessionId } = await agent.request('session/new', { cwd, mcpServers: [] });
      const running = agent.request('session/prompt', { sessionId, prompt: text('one') });
      while (host.prompts.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      expect(await agent.request('session/close', { sessionId })).toEqual({});
      expect(await running).toMatchObject({ stopReason: 'cancelled' });
      await expect(agent.request('session/prompt', { sessionId, prompt: text('two') })).rejects.toMatchObject({ code: -32002 });
    });
  });

  it('session/resume starts a stored session without replaying it', async () => {
    const { updates } = await withClient(async (agent) => {
      expect(await agent.request('session/resume', { sessionId: '0197a000-0000-7000-8000-00000000000f', cwd })).toEqual({});
    });
    expect(host.started).toMatchObject([{ sessionId: '0197a000-0000-7000-8000-00000000000f', cwd, mcpServers: [] }]);
    expect(updates).toEqual([]);
  });

  it('two loads of one stored session at once start it once (one writer of its file)', async () => {
    const sessionId = '0197a000-0000-7000-8000-00000000000e';
    host.startDelay = 20;
    await withClient(async (agent) => {
      await Promise.all([agent.request('session/load', { sessionId, cwd, mcpServers: [] }), agent.request('session/resume', { sessionId, cwd })]);
    });
    expect(host.started).toHaveLength(1);
  });
});
