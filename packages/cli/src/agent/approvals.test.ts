import type { ToolCallBlock } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { Approvals, chainToolGuards, type ApprovalAnswer, type ApprovalRequest } from './approvals.js';
import { SandboxGrants, type CommandSandbox, type SandboxNeed } from '../sandbox/policy.js';
import { toolContext } from '../../../../test/support/tool-context.js';

function call(name: string, input: ToolCallBlock['input'] = {}): ToolCallBlock {
  return { type: 'tool_call', id: `call_${name}`, name, input };
}

/** A sandbox that lets commands write under /work only, with the network when `network` is standing. */
function fakeSandbox(standing: SandboxNeed[] = []): CommandSandbox {
  return {
    mode: 'workspace-write',
    standing: new Set(standing),
    writableRoots: () => ['/work'],
    allowsWrite: (path) => path.startsWith('/work/') && !path.startsWith('/work/.git/'),
    allowsRead: (path) => !path.startsWith('/home/ada/.ssh'),
    describe: () => 'a fake sandbox',
    wrap: () => {
      throw new Error('not for running');
    },
  };
}

function asking(answers: ApprovalAnswer[], sandbox?: { sandbox: CommandSandbox; grants: SandboxGrants; cwd: string }) {
  const asked: string[] = [];
  const requests: ApprovalRequest[] = [];
  const approvals = new Approvals(
    {
      type: 'ask',
      ask: async (toolCall, _signal, request) => {
        asked.push(toolCall.name);
        requests.push(request);
        return answers.shift() ?? { type: 'deny' };
      },
    },
    sandbox,
  );
  return { approvals, asked, requests };
}

const allow = { type: 'allow' };

describe('Approvals', () => {
  it('never asks about read, nor about tools it does not know', async () => {
    const { approvals, asked } = asking([]);
    expect(await approvals.beforeToolCall(call('read', { path: 'a' }), toolContext())).toBeUndefined();
    expect(await approvals.beforeToolCall(call('mcp__x__y'), toolContext())).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('asks before bash, write and edit; "once" asks again next time, "session" does not', async () => {
    const { approvals, asked } = asking([{ type: 'once' }, { type: 'session' }, { type: 'once' }]);
    expect(await approvals.beforeToolCall(call('bash'), toolContext())).toEqual(allow);
    expect(await approvals.beforeToolCall(call('bash'), toolContext())).toEqual(allow);
    expect(await approvals.beforeToolCall(call('bash'), toolContext())).toEqual(allow);
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
    for (const name of ['bash', 'write', 'edit']) expect(await approvals.beforeToolCall(call(name), toolContext())).toEqual(allow);
  });

  it('chains guards: the first refusal wins and later guards are not asked', async () => {
    const { approvals, asked } = asking([{ type: 'once' }]);
    const guard = chainToolGuards(() => ({ type: 'refuse', reason: 'extension says no' }), approvals.beforeToolCall);
    expect(await guard(call('bash'), toolContext())).toEqual({ type: 'refuse', reason: 'extension says no' });
    expect(asked).toEqual([]);
  });

  describe('with a sandbox', () => {
    const box = (standing: SandboxNeed[] = []) => ({ sandbox: fakeSandbox(standing), grants: new SandboxGrants(), cwd: '/work' });

    it('runs bash inside its limits without asking, and write or edit where the sandbox lets commands write', async () => {
      const { approvals, asked } = asking([], box());
      expect(await approvals.beforeToolCall(call('bash', { command: 'npm test' }), toolContext())).toBeUndefined();
      expect(await approvals.beforeToolCall(call('write', { path: 'src/a.ts', content: '' }), toolContext())).toBeUndefined();
      expect(await approvals.beforeToolCall(call('edit', { path: '/work/b.ts', old_text: 'a', new_text: 'b' }), toolContext())).toBeUndefined();
      expect(asked).toEqual([]);
    });

    it('asks before read of a secret the sandbox hides from commands, not before any other read', async () => {
      const { approvals, asked } = asking([{ type: 'deny' }], box());
      expect(await approvals.beforeToolCall(call('read', { path: '/home/ada/.ssh/id_rsa' }), toolContext())).toMatchObject({ type: 'refuse' });
      expect(await approvals.beforeToolCall(call('read', { path: '/etc/hosts' }), toolContext())).toBeUndefined();
      expect(asked).toEqual(['read']);
    });

    it('asks about write and edit outside those places (.git, another folder)', async () => {
      const { approvals, asked } = asking([{ type: 'once' }, { type: 'deny' }], box());
      expect(await approvals.beforeToolCall(call('write', { path: '.git/hooks/pre-commit', content: '' }), toolContext())).toEqual(allow);
      expect(await approvals.beforeToolCall(call('edit', { path: '/etc/hosts', old_text: 'a', new_text: 'b' }), toolContext())).toMatchObject({
        type: 'refuse',
      });
      expect(asked).toEqual(['write', 'edit']);
    });

    it('asks about a command that needs more, naming it, and grants that call exactly what was approved', async () => {
      const sandbox = box();
      const { approvals, requests } = asking([{ type: 'once' }], sandbox);
      const context = { ...toolContext(), toolCallId: 'call_net' };
      expect(await approvals.beforeToolCall(call('bash', { command: 'npm install', needs: ['network'] }), context)).toEqual(allow);
      expect(requests).toEqual([{ needs: ['network access'], kind: 'bash with network access' }]);
      expect([...sandbox.grants.take('call_net')]).toEqual(['network']);
      expect([...sandbox.grants.take('call_net')]).toEqual([]);
    });

    it('"for this session" covers calls with the same needs only', async () => {
      const sandbox = box();
      const { approvals, asked } = asking([{ type: 'session' }, { type: 'once' }], sandbox);
      const network = call('bash', { command: 'curl x', needs: ['network'] });
      expect(await approvals.beforeToolCall(network, toolContext())).toEqual(allow);
      expect(await approvals.beforeToolCall(network, toolContext())).toEqual(allow);
      expect(await approvals.beforeToolCall(call('bash', { command: 'git push', needs: ['network', 'write'] }), toolContext())).toEqual(allow);
      expect(asked).toEqual(['bash', 'bash']);
    });

    it('does not ask for what is standing (--allow-network), and asks full-access alone when it is among the needs', async () => {
      const sandbox = box(['network']);
      const { approvals, requests } = asking([{ type: 'once' }], sandbox);
      expect(await approvals.beforeToolCall(call('bash', { command: 'npm install', needs: ['network'] }), toolContext())).toBeUndefined();
      const context = { ...toolContext(), toolCallId: 'call_full' };
      expect(await approvals.beforeToolCall(call('bash', { command: 'git push', needs: ['network', 'full-access'] }), context)).toEqual(allow);
      expect(requests.map((request) => request.needs)).toEqual([['running outside the sandbox (secrets, network, any write)']]);
      expect([...sandbox.grants.take('call_full')]).toEqual(['full-access']);
    });

    it('refuses what needs more where nobody can be asked, naming it and how to allow it; --yolo grants it', async () => {
      const refusing = new Approvals({ type: 'refuse', where: 'panto -p' }, box());
      expect(await refusing.beforeToolCall(call('bash', { command: 'ls' }), toolContext())).toBeUndefined();
      const decision = await refusing.beforeToolCall(call('bash', { command: 'curl x', needs: ['network'] }), toolContext());
      expect(decision).toEqual({
        type: 'refuse',
        reason:
          'bash asked for network access, beyond the sandbox, and panto -p cannot ask the user for it. Do without it, or the user can run panto again with --yolo (or --allow-network for the network).',
      });
      const sandbox = box();
      const yolo = new Approvals({ type: 'yolo' }, sandbox);
      expect(await yolo.beforeToolCall(call('bash', { command: 'curl x', needs: ['network'] }), { ...toolContext(), toolCallId: 'call_y' })).toEqual(allow);
      expect([...sandbox.grants.take('call_y')]).toEqual(['network']);
    });
  });
});

describe('"for this session" on a file', () => {
  it('covers the folder of that file only: allowing ~/notes/todo.md does not allow ~/.bashrc nor ~/notes/sub/x', async () => {
    const sandbox = { sandbox: fakeSandbox(), grants: new SandboxGrants(), cwd: '/work' };
    const { approvals, asked, requests } = asking([{ type: 'session' }, { type: 'deny' }, { type: 'deny' }], sandbox);
    expect(await approvals.beforeToolCall(call('write', { path: '/nonexistent-home/notes/todo.md' }), toolContext())).toEqual({ type: 'allow' });
    expect(await approvals.beforeToolCall(call('write', { path: '/nonexistent-home/notes/done.md' }), toolContext())).toEqual({ type: 'allow' });
    expect((await approvals.beforeToolCall(call('write', { path: '/nonexistent-home/notes/../.bashrc' }), toolContext()))?.type).toBe('refuse');
    expect((await approvals.beforeToolCall(call('write', { path: '/nonexistent-home/notes/sub/x' }), toolContext()))?.type).toBe('refuse');
    expect(asked).toEqual(['write', 'write', 'write']);
    expect(requests[0]?.kind).toBe('write in /nonexistent-home/notes');
  });
});

describe('read under /proc', () => {
  it('asks, sandbox or not: panto’s own /proc/self/environ holds the provider keys', async () => {
    for (const sandbox of [undefined, { sandbox: fakeSandbox(), grants: new SandboxGrants(), cwd: '/work' }]) {
      const { approvals, asked } = asking([{ type: 'deny' }, { type: 'deny' }], sandbox);
      expect((await approvals.beforeToolCall(call('read', { path: '/proc/self/environ' }), toolContext()))?.type).toBe('refuse');
      expect((await approvals.beforeToolCall(call('read', { path: `/proc/${process.pid}/cmdline` }), toolContext()))?.type).toBe('refuse');
      expect(asked).toEqual(['read', 'read']);
    }
  });
});
