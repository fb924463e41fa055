/**
 * Tool approvals on the local stack: `scripts/start.ts` (as `npm start` runs it) with
 * PANTO_MCP_SERVERS naming the everything server and a payments server over Streamable HTTP,
 * and PANTO_MCP_APPROVALS making the everything server's get-sum ask and the payments server's
 * pay never ask. The flow of docs/api.md#tool-approvals, as its curl lines make it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@panto/core';
import { FakeLLMServer } from '@panto/core/testing';
import { localSecretFile, readLocalSecret, signLocalToken } from '@panto/functions/local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHTTP, type RunningHTTPServer } from './mcp-harness.js';
import { localAws } from './setup/aws-fixtures.js';
import { startLocalStack, type LocalStack } from './local-stack-harness.js';
import { startPaymentsServer, type PaymentsServer } from './support/payments-mcp-server.js';

let fake: FakeLLMServer;
let everything: RunningHTTPServer;
let payments: PaymentsServer;
let dataDir: string;
let server: LocalStack;
let token: string;

beforeAll(async () => {
  const aws = await localAws('e2eapprovals');
  [fake, everything, payments] = await Promise.all([FakeLLMServer.start(), startEverythingHTTP(), startPaymentsServer()]);
  dataDir = await mkdtemp(join(tmpdir(), 'panto-e2e-approvals-'));
  server = await startLocalStack({
    aws,
    dataDir,
    fake,
    model: 'claude-e2e',
    env: {
      PANTO_MCP_SERVERS: JSON.stringify({ mcpServers: { everything: { url: everything.url }, payments: { url: payments.url } } }),
      PANTO_MCP_APPROVALS: JSON.stringify({ everything: { 'get-sum': 'ask' }, payments: { pay: 'never' }, typo: 'ask' }),
    },
  });
  token = await signLocalToken(await readLocalSecret(localSecretFile(dataDir)), 'alice');
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all([everything?.stop(), payments?.close(), fake?.close()]);
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

  it('pauses on get-sum because the operator says it asks, runs pay at once because the operator says it never does, and resumes on a decision', async () => {
    const { id } = (await (await call('POST', '/sessions', {})).json()) as { id: string };
    fake.enqueue({
      toolCalls: [
        { id: 'toolu_sum', name: 'mcp__everything__get-sum', input: { a: 20, b: 22 } },
        { id: 'toolu_pay', name: 'mcp__payments__pay', input: { to: 'zoe', amount: 3 } },
      ],
    });
    const paused = (await (await call('POST', `/sessions/${id}/messages`, { text: 'add, and pay zoe' })).json()) as {
      stop_reason: string;
      pending_approvals: { tool_call_id: string; reason: string }[];
    };
    expect(paused.stop_reason, JSON.stringify(paused)).toBe('awaiting_approval');
    expect(paused.pending_approvals).toEqual([
      expect.objectContaining({ tool_call_id: 'toolu_sum', reason: 'the operator asks for approval of every call of "get-sum" (MCP server "everything")' }),
    ]);
    expect(payments.payments).toEqual([{ tool: 'pay', to: 'zoe', amount: 3 }]);
    const read = (await (await call('GET', `/sessions/${id}`)).json()) as { pending_approvals: unknown[] };
    expect(read.pending_approvals).toHaveLength(1);
    fake.enqueue({ text: '42, and Zoe is paid.' });
    const resumed = await call('POST', `/sessions/${id}/approvals`, { decisions: [{ tool_call_id: 'toolu_sum', decision: 'approve' }] });
    const text = await resumed.text();
    expect(resumed.status, text).toBe(200);
    const turn = JSON.parse(text) as { messages: Message[]; stop_reason: string };
    expect(turn.stop_reason).toBe('end_turn');
    expect(turn.messages[0]).toMatchObject({ role: 'tool_result', tool_call_id: 'toolu_sum', content: 'The sum of 20 and 22 is 42.' });
  });
});
