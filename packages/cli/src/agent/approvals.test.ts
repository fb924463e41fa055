import type { ToolCallBlock } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { Approvals, chainToolGuards, type ApprovalAnswer } from './approvals.js';
import { toolContext } from '../../../../test/support/tool-context.js';

function call(name: string, input: ToolCallBlock['input'] = {}): ToolCallBlock {
  return { type: 'tool_call', id: `call_${name}`, name, input };
}

function asking(answers: ApprovalAnswer[]) {
  const asked: string[] = [];
  const approvals = new Approvals({
    type: 'ask',
    ask: async (toolCall) => {
      asked.push(toolCall.name);
      return answers.shift() ?? { type: 'deny' };
    },
  });
  return { approvals, asked };
}

describe('Approvals', () => {
  it('never asks about read, nor about tools it does not know', async () => {
    const { approvals, asked } = asking([]);
    expect(await approvals.beforeToolCall(call('read', { path: 'a' }), toolContext())).toBeUndefined();
    expect(await approvals.beforeToolCall(call('mcp__x__y'), toolContext())).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('asks before bash, write and edit; "once" asks again next time, "session" does not', async () => {
    const { approvals, asked } = asking([{ type: 'once' }, { type: 'session' }, { type: 'once' }]);
    expect(await approvals.beforeToolCall(call('bash'), toolContext())).toEqual({ type: 'allow' });
    expect(await approvals.beforeToolCall(call('bash'), toolContext())).toEqual({ type: 'allow' });
    expect(await approvals.beforeToolCall(call('bash'), toolContext())).toBeUndefined();
    expect(await approvals.beforeToolCall(call('write'), toolContext())).toEqual({ type: 'allow' });
    expect(asked).toEqual(['bash', 'bash', 'write']);
  });

  it('refuses a denied call with the reason the user gave', async () => {
    const { approvals } = asking([{ type: 'deny', reason: 'use the test script' }, { type: 'deny' }]);
    expect(await approvals.beforeToolCall(call('edit'), toolContext())).toEqual({
      type: 'refuse',
      reason: 'the user denied it: use the test script',
    });
    expect(await approvals.beforeToolCall(call('edit'), toolContext())).toEqual({
      type: 'refuse',
      reason: 'the user denied it',
    });
  });

  it('where nobody can be asked, refuses with an error that says how to allow them', async () => {
    const approvals = new Approvals({ type: 'refuse', where: 'panto -p' });
    const decision = await approvals.beforeToolCall(call('bash'), toolContext());
    expect(decision).toMatchObject({ type: 'refuse', reason: expect.stringContaining('panto -p cannot ask') });
    expect(decision).toMatchObject({ reason: expect.stringContaining('--yolo') });
    expect(await approvals.beforeToolCall(call('read'), toolContext())).toBeUndefined();
  });

  it('with --yolo, runs everything without asking', async () => {
    const approvals = new Approvals({ type: 'yolo' });
    for (const name of ['bash', 'write', 'edit']) expect(await approvals.beforeToolCall(call(name), toolContext())).toBeUndefined();
  });

  it('chains guards: the first refusal wins and later guards are not asked', async () => {
    const { approvals, asked } = asking([{ type: 'once' }]);
    const guard = chainToolGuards(() => ({ type: 'refuse', reason: 'extension says no' }), approvals.beforeToolCall);
    expect(await guard(call('bash'), toolContext())).toEqual({ type: 'refuse', reason: 'extension says no' });
    expect(asked).toEqual([]);
  });
});
