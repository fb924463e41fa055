/**
 * Tool approvals on the local stack: `scripts/start.ts` (as `npm start` runs it) with
 * PANTO_MCP_SERVERS naming a payments server over Streamable HTTP (`pay` asks by default,
 * `balance` is read-only) and PANTO_MCP_APPROVALS making its `refund` ask though the server
 * marks it read-only. The flow of docs/api.md#tool-approvals runs as its curl lines are pasted
 * into a shell.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@panto/core';
import { FakeLLMServer } from '@panto/core/testing';
import { localSecretFile, readLocalSecret, signLocalToken } from '@panto/functions/local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAws } from './setup/aws-fixtures.js';
import { startLocalStack, type LocalStack } from './local-stack-harness.js';
import { startPaymentsServer, type PaymentsServer } from './support/payments-mcp-server.js';

let fake: FakeLLMServer;
let payments: PaymentsServer;
let dataDir: string;
let server: LocalStack;
let token: string;

beforeAll(async () => {
  const aws = await localAws('e2eapprovals');
  [fake, payments] = await Promise.all([FakeLLMServer.start(), startPaymentsServer()]);
  dataDir = await mkdtemp(join(tmpdir(), 'panto-e2e-approvals-'));
  server = await startLocalStack({
    aws,
    dataDir,
    fake,
    model: 'claude-e2e',
    env: {
      PANTO_MCP_SERVERS: JSON.stringify({ mcpServers: { payments: { url: payments.url } } }),
      PANTO_MCP_APPROVALS: JSON.stringify({ payments: { refund: 'ask' }, typo: 'ask' }),
    },
  });
  token = await signLocalToken(await readLocalSecret(localSecretFile(dataDir)), 'alice');
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([payments?.close(), fake?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('tool approvals on the local stack', { timeout: 60_000 }, () => {
  it('says at start which rule it could not take (a server it does not have)', () => {
    expect(server.output()).toContain('PANTO_MCP_APPROVALS: "typo" is not a server of PANTO_MCP_SERVERS; its rules are ignored');
  });

  it('pauses on refund because the operator says it asks (its server says it only reads), runs balance at once, and resumes on a decision', async () => {
    const { id } = (await (await call('POST', '/sessions', {})).json()) as { id: string };
    fake.enqueue({
      toolCalls: [
        { id: 'toolu_refund', name: 'mcp__payments__refund', input: { to: 'zoe', amount: 3 } },
        { id: 'toolu_balance', name: 'mcp__payments__balance', input: {} },
      ],
    });
    const paused = (await (await call('POST', `/sessions/${id}/messages`, { text: 'refund zoe, and show the balance' })).json()) as {
      stop_reason: string;
      messages: Message[];
      pending_approvals: { tool_call_id: string; reason: string }[];
    };
    expect(paused.stop_reason, JSON.stringify(paused)).toBe('awaiting_approval');
    expect(paused.pending_approvals).toEqual([
      expect.objectContaining({ tool_call_id: 'toolu_refund', reason: 'the operator asks for approval of every call of "refund" (MCP server "payments")' }),
    ]);
    expect(paused.messages.at(-1)).toMatchObject({ role: 'tool_result', tool_call_id: 'toolu_balance' });
    expect(payments.payments.filter((payment) => payment.to === 'zoe')).toEqual([]);
    const read = (await (await call('GET', `/sessions/${id}`)).json()) as { pending_approvals: unknown[] };
    expect(read.pending_approvals).toHaveLength(1);
    fake.enqueue({ text: 'Refunded.' });
    const resumed = await call('POST', `/sessions/${id}/approvals`, { decisions: [{ tool_call_id: 'toolu_refund', decision: 'approve' }] });
    const text = await resumed.text();
    expect(resumed.status, text).toBe(200);
    const turn = JSON.parse(text) as { messages: Message[]; stop_reason: string };
    expect(turn.stop_reason).toBe('end_turn');
    expect(turn.messages[0]).toMatchObject({ role: 'tool_result', tool_call_id: 'toolu_refund', content: 'Refunded 3 to zoe' });
  });

  it('runs the curl lines of docs/api.md (Tool approvals) as pasted: pause, read, approve with a key; and on another session deny, then a refused stream', async () => {
    const docs = await readFile(new URL('../docs/api.md', import.meta.url), 'utf8');
    const start = docs.indexOf('### Tool approvals');
    // The section runs to the next heading of its level.
    const section = docs.slice(start, docs.indexOf('\n### ', start + 1));
    const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks).toHaveLength(4);
    const [pause, read, approve, deny] = blocks as [string, string, string, string];
    const shell = async (id: string, script: string): Promise<string> => {
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', PANTO: server.url, PANTO_STREAM: server.url, PANTO_TOKEN: token, ID: id };
      return (await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { env })).stdout;
    };
    const session = async () => ((await (await call('POST', '/sessions', {})).json()) as { id: string }).id;
    const payAndBalance = () =>
      fake.enqueue({
        toolCalls: [
          { id: 'toolu_01', name: 'mcp__payments__pay', input: { to: 'bob', amount: 5 } },
          { id: 'toolu_02', name: 'mcp__payments__balance', input: {} },
        ],
      });

    const first = await session();
    payAndBalance();
    const paused = JSON.parse(await shell(first, pause)) as { stop_reason: string; pending_approvals: { tool_call_id: string; tool: string }[] };
    expect(paused.stop_reason).toBe('awaiting_approval');
    expect(paused.pending_approvals.map((call) => [call.tool_call_id, call.tool])).toEqual([['toolu_01', 'mcp__payments__pay']]);
    if ((await promisify(execFile)('bash', ['-c', 'command -v jq || true'])).stdout.trim() !== '') {
      expect(JSON.parse(await shell(first, read))).toEqual([expect.objectContaining({ tool_call_id: 'toolu_01', input: { to: 'bob', amount: 5 } })]);
    }
    fake.enqueue({ text: 'Paid Bob 5 euros.' });
    const approved = JSON.parse(await shell(first, approve)) as { stop_reason: string; messages: Message[]; approval: unknown };
    expect(approved.stop_reason).toBe('end_turn');
    expect(approved.messages[0]).toMatchObject({ role: 'tool_result', tool_call_id: 'toolu_01', content: expect.stringMatching(/^Paid 5 to bob/) });
    expect(approved.approval).toMatchObject({ decisions: [{ tool_call_id: 'toolu_01', decision: 'approve' }] });
    // The key's retry is the same answer, and nothing is paid again.
    expect(await shell(first, approve)).toBe(JSON.stringify(approved));
    expect(payments.payments.filter((payment) => payment.to === 'bob')).toHaveLength(1);

    const second = await session();
    payAndBalance();
    await shell(second, pause);
    fake.enqueue({ text: 'Not paid.' });
    const [denied = '', streamed = ''] = (await shell(second, deny.replace('\n# streamed', '\necho\necho ---\n# streamed'))).split('\n---\n');
    expect(JSON.parse(denied)).toMatchObject({
      messages: [
        { role: 'tool_result', tool_call_id: 'toolu_01', content: 'Tool call denied: Bob was paid yesterday. It was not run.', is_error: true },
        { role: 'assistant' },
      ],
    });
    // Decided already: the stream is refused before it starts.
    expect(JSON.parse(streamed)).toMatchObject({ error: { code: 'approval_not_pending' } });
    expect(payments.payments.filter((payment) => payment.to === 'bob')).toHaveLength(1);
  });
});
