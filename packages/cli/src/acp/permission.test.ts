import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ToolCallBlock } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { answerOf, clientApproval, permissionOptions, type RequestPermission } from './permission.js';

const call: ToolCallBlock = { type: 'tool_call', id: 'c1', name: 'bash', input: { command: 'curl example.com' } };
const request = { needs: ['network access'], kind: 'bash with network access' };

function approval(ask: RequestPermission, logged: string[] = []) {
  return clientApproval({
    sessionId: () => 's1',
    request: ask,
    describe: async () => ({ toolCallId: 'c1', title: 'bash $ curl example.com', kind: 'execute' }),
    log: (line) => logged.push(line),
  });
}

describe('approvals through the ACP client', () => {
  it("offers the terminal's three choices", () => {
    expect(permissionOptions(request)).toEqual([
      { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'allow_session', name: 'Allow bash with network access for this session', kind: 'allow_always' },
      { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
    ]);
  });

  it('allows only on an option panto offered: cancelled, and anything else, deny', () => {
    expect(answerOf({ outcome: 'selected', optionId: 'allow_once' })).toEqual({ type: 'once' });
    expect(answerOf({ outcome: 'selected', optionId: 'allow_session' })).toEqual({ type: 'session' });
    expect(answerOf({ outcome: 'selected', optionId: 'deny' })).toEqual({ type: 'deny' });
    expect(answerOf({ outcome: 'cancelled' })).toEqual({ type: 'deny', reason: 'the prompt was cancelled' });
    expect(answerOf({ outcome: 'selected', optionId: 'allow_always' })).toMatchObject({ type: 'deny' });
    expect(answerOf({ outcome: 'selected', optionId: 'ALLOW_ONCE' })).toMatchObject({ type: 'deny' });
  });

  it('asks about the call as the client shows it, naming what it needs beyond the sandbox', async () => {
    const sent: RequestPermissionRequest[] = [];
    const ask = approval(async (params) => {
      sent.push(params);
      return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
    });
    expect(await ask(call, new AbortController().signal, request)).toEqual({ type: 'once' });
    expect(sent).toEqual([
      {
        sessionId: 's1',
        toolCall: { toolCallId: 'c1', title: 'bash $ curl example.com (needs network access, beyond the sandbox)', kind: 'execute' },
        options: permissionOptions(request),
      },
    ]);
  });

  it('denies at once when the step is aborted, withdrawing the request, though the client never answers', async () => {
    const controller = new AbortController();
    let withdrawn = false;
    const ask = approval(
      (_params, signal) =>
        new Promise<RequestPermissionResponse>(() => {
          signal.addEventListener('abort', () => (withdrawn = true));
        }),
    );
    const answer = ask(call, controller.signal, request);
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await answer).toEqual({ type: 'deny', reason: 'the prompt was cancelled' });
    expect(withdrawn).toBe(true);
  });

  it('denies when the client fails to answer, and says so in the log', async () => {
    const logged: string[] = [];
    const ask = approval(async () => Promise.reject(new Error('connection closed')), logged);
    expect(await ask(call, new AbortController().signal, request)).toEqual({ type: 'deny', reason: 'the editor could not be asked' });
    expect(logged).toEqual(['panto: the ACP client did not answer a permission request, so the call is denied: connection closed']);
  });
});
