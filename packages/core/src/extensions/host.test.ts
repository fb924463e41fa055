import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.js';
import { ExtensionError } from '../errors.js';
import type { AgentEvent } from '../agent/events.js';
import { headlessUI, type Extension, type ExtensionContext } from './api.js';
import { ExtensionHost, extensionAgent, type ExtensionFailure } from './host.js';
import { MemoryStore } from '../stores/memory-store.js';
import { describeExtensionHostConformance } from '../testing/conformance/index.js';
import { ScriptedProvider, type ScriptedReply } from '../testing/index.js';
import { ToolRegistry, type Tool } from '../tool.js';

const builtIn: Tool = {
  name: 'bash',
  description: 'Runs a command',
  input_schema: { type: 'object', properties: { command: { type: 'string' } } },
  execute: async (input) => `ran ${String(input.command)}`,
};

function wordCount(name = 'word_count'): Tool {
  return {
    name,
    description: 'Counts words',
    input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: async (input) => String(String(input.text).split(/\s+/).filter(Boolean).length),
  };
}

/** The CLI's construction order, with a memory store and a scripted model. */
function setup(replies: ScriptedReply[] = []) {
  const tools = new ToolRegistry();
  const failures: ExtensionFailure[] = [];
  const host = new ExtensionHost({
    tools,
    reservedCommands: ['help', 'quit'],
    onError: (failure) => failures.push(failure),
    loadTimeoutMs: 200,
  });
  const provider = new ScriptedProvider(replies);
  const store = new MemoryStore();
  const agent = new Agent({ provider, tools, beforeToolCall: host.beforeToolCall }, { store });
  tools.register(builtIn);
  const printed: string[] = [];
  const context: ExtensionContext = {
    agent: extensionAgent(agent),
    session: { id: store.sessionId(), file: undefined, entries: async () => structuredClone(store.entries) },
    ui: headlessUI({ print: (text) => printed.push(text) }),
  };
  const attach = () => host.attach(agent, context);
  return { tools, host, agent, store, provider, failures, printed, attach };
}

const source = (path: string) => ({ path, origin: 'test' });

function results(store: MemoryStore): { content: string; is_error: boolean }[] {
  return store.entries.flatMap((entry) =>
    entry.type === 'message' && entry.message.role === 'tool_result' ? [{ content: entry.message.content, is_error: entry.message.is_error }] : [],
  );
}

describe('ExtensionHost', () => {
  it("registers an extension's tool in the agent's registry: the model is offered it, calls it, and its result is persisted", async () => {
    const { host, agent, store, provider, attach } = setup([
      { toolCalls: [{ id: 'c1', name: 'word_count', input: { text: 'one two three' } }] },
      { text: 'Three words.' },
    ]);
    const record = await host.load(source('wc.ts'), {
      default: ((panto) => panto.registerTool(wordCount())) satisfies Extension,
    });
    expect(record).toEqual({
      status: 'loaded',
      source: source('wc.ts'),
      tools: ['word_count'],
      commands: [],
      events: [],
    });
    attach();
    await agent.submitUserMessage('count');
    await agent.runStep();
    expect(provider.requests[0]!.tools.map((tool) => tool.name)).toEqual(['bash', 'word_count']);
    expect(results(store)).toEqual([{ content: '3', is_error: false }]);
  });

  it('loads all or nothing: an extension that throws after registering leaves no tool, command or handler behind', async () => {
    const { host, tools } = setup();
    const record = await host.load(source('half.ts'), {
      default: (panto: Parameters<Extension>[0]) => {
        panto.registerTool(wordCount());
        panto.registerCommand('half', { description: 'never', handler: () => {} });
        panto.on('step-end', () => {});
        throw new Error('config file missing');
      },
    });
    expect(record).toMatchObject({ status: 'failed', error: { message: 'config file missing' } });
    expect(tools.get('word_count')).toBeUndefined();
    expect(host.command('half')).toBeUndefined();
    expect(host.records).toEqual([record]);
  });

  it.each([
    ['a default export that is not a function', { default: 42 }, /default export is not a function/],
    ['no default export', { helper: () => {} }, /default export is not a function/],
    ['a taken tool name', { default: (p: Parameters<Extension>[0]) => p.registerTool({ ...wordCount(), name: 'bash' }) }, /tool name bash is taken/],
    ['an invalid tool name', { default: (p: Parameters<Extension>[0]) => p.registerTool({ ...wordCount(), name: 'read.file' }) }, /\[a-zA-Z0-9_-\]/],
    ['a name kept for MCP tools', { default: (p: Parameters<Extension>[0]) => p.registerTool({ ...wordCount(), name: 'mcp__x__y' }) }, /for MCP servers/],
    [
      'a tool without execute',
      { default: (p: Parameters<Extension>[0]) => p.registerTool({ ...wordCount(), execute: undefined } as never) },
      /needs an execute function/,
    ],
    [
      'a built-in command',
      {
        default: (p: Parameters<Extension>[0]) => p.registerCommand('help', { description: 'mine', handler: () => {} }),
      },
      /\/help is a built-in command/,
    ],
    [
      'a bad command name',
      { default: (p: Parameters<Extension>[0]) => p.registerCommand('Do It', { description: 'x', handler: () => {} }) },
      /lowercase letters/,
    ],
    ['an unknown event', { default: (p: Parameters<Extension>[0]) => p.on('turn-end' as never, () => {}) }, /unknown event "turn-end"/],
    ['a factory that never returns', { default: () => new Promise(() => {}) }, /did not finish loading within 200 ms/],
  ])('fails to load, with a reason, for %s', async (_what, exports, reason) => {
    const { host, tools } = setup();
    const record = await host.load(source('bad.ts'), exports);
    expect(record.status).toBe('failed');
    expect(record.status === 'failed' && record.error.message).toMatch(reason);
    expect(tools.list().map((tool) => tool.name)).toEqual(['bash']);
  });

  it('names the extension that already holds a command', async () => {
    const { host } = setup();
    const stats: Extension = (panto) => panto.registerCommand('stats', { description: 'one', handler: () => {} });
    await host.load(source('first.ts'), { default: stats });
    const second = await host.load(source('second.ts'), { default: stats });
    expect(second.status === 'failed' && second.error.message).toBe('/stats is taken by first.ts');
    expect(host.commands().map((command) => [command.name, command.source.path])).toEqual([['stats', 'first.ts']]);
  });

  it('refuses registrations made after the extension finished loading', async () => {
    const { host, tools } = setup();
    let late: (() => void) | undefined;
    await host.load(source('late.ts'), {
      default: ((panto) => {
        late = () => panto.registerTool(wordCount());
      }) satisfies Extension,
    });
    expect(late).toThrow(ExtensionError);
    expect(late).toThrow(/after the extension finished loading/);
    expect(tools.get('word_count')).toBeUndefined();
  });

  it('runs a command with its arguments and the context: the session id and entries, the UI', async () => {
    const { host, agent, store, printed, attach } = setup();
    await host.load(source('stats.ts'), {
      default: ((panto) =>
        panto.registerCommand('stats', {
          description: 'count entries',
          handler: async (args, context) => {
            const entries = await context.session.entries();
            context.ui.print(`${args}: ${context.session.id} has ${entries.length} entries, model ${context.agent.model.provider}`);
          },
        })) satisfies Extension,
    });
    attach();
    await agent.submitUserMessage('hello');
    await host.runCommand('stats', 'now');
    expect(printed).toEqual([`now: ${store.sessionId()} has 1 entries, model scripted`]);
    await expect(host.runCommand('nope', '')).rejects.toThrow('no extension command /nope');
  });

  it('passes on what a command throws, for the host to report', async () => {
    const { host, attach } = setup();
    await host.load(source('boom.ts'), {
      default: ((panto) =>
        panto.registerCommand('boom', {
          description: 'fails',
          handler: () => {
            throw new Error('kaboom');
          },
        })) satisfies Extension,
    });
    attach();
    await expect(host.runCommand('boom', '')).rejects.toThrow('kaboom');
  });

  it("gives event handlers the agent's events with the context, and reports a handler that throws or rejects without breaking the turn", async () => {
    const { host, agent, store, failures, attach } = setup([{ text: 'hi' }]);
    const seen: string[] = [];
    await host.load(source('observer.ts'), {
      default: ((panto) => {
        panto.on('step-start', () => void seen.push('step-start'));
        panto.on('entries-persisted', (event, context) => void seen.push(`persisted ${event.records.length} in ${context.session.id}`));
        panto.on('step-end', (event) => void seen.push(`step-end ${event.result.stopReason}`));
      }) satisfies Extension,
    });
    await host.load(source('broken.ts'), {
      default: ((panto) => {
        panto.on('step-start', () => {
          throw new Error('sync failure');
        });
        panto.on('step-end', async () => {
          throw new Error('async failure');
        });
      }) satisfies Extension,
    });
    attach();
    await agent.submitUserMessage('hello');
    const result = await agent.runStep();
    await new Promise((resolve) => setImmediate(resolve));
    expect(result.stopReason).toBe('end_turn');
    expect(store.entries.map((entry) => entry.type === 'message' && entry.message.role)).toEqual(['user', 'assistant']);
    const id = store.sessionId();
    expect(seen).toEqual([`persisted 1 in ${id}`, 'step-start', `persisted 1 in ${id}`, 'step-end end_turn']);
    expect(failures.map((failure) => [failure.source.path, failure.where, failure.error.message])).toEqual([
      ['broken.ts', "on('step-start')", 'sync failure'],
      ['broken.ts', "on('step-end')", 'async failure'],
    ]);
  });

  it('turns a before-tool-call refusal into an error result the model sees, asking extensions in load order', async () => {
    const { host, agent, store, provider, attach } = setup([
      {
        toolCalls: [
          { id: 'c1', name: 'bash', input: { command: 'rm -rf /' } },
          { id: 'c2', name: 'bash', input: { command: 'ls' } },
        ],
      },
      { text: 'ok' },
    ]);
    const asked: string[] = [];
    await host.load(source('guard.ts'), {
      default: ((panto) =>
        panto.on('before-tool-call', (call) => {
          asked.push(`guard ${call.id}`);
          return String(call.input.command).startsWith('rm') ? { type: 'refuse', reason: 'rm is not allowed' } : undefined;
        })) satisfies Extension,
    });
    await host.load(source('audit.ts'), {
      default: ((panto) => panto.on('before-tool-call', (call) => void asked.push(`audit ${call.id}`))) satisfies Extension,
    });
    attach();
    await agent.submitUserMessage('clean up');
    await agent.runStep();
    expect(asked).toEqual(['guard c1', 'guard c2', 'audit c2']);
    expect(results(store)).toEqual([
      { content: 'Tool call refused: rm is not allowed', is_error: true },
      { content: 'ran ls', is_error: false },
    ]);
    expect(JSON.stringify(provider.requests[1]!.messages)).toContain('Tool call refused: rm is not allowed');
  });

  it('refuses the call, and reports the extension, when a before-tool-call handler throws or answers nonsense', async () => {
    const { host, agent, store, failures, attach } = setup([
      {
        toolCalls: [
          { id: 'c1', name: 'bash', input: { command: 'ls' } },
          { id: 'c2', name: 'bash', input: { command: 'pwd' } },
        ],
      },
      { text: 'ok' },
    ]);
    await host.load(source('flaky.ts'), {
      default: ((panto) =>
        panto.on('before-tool-call', (call) => {
          if (call.id === 'c1') throw new Error('cannot read policy');
          return { block: true } as never;
        })) satisfies Extension,
    });
    attach();
    await agent.submitUserMessage('go');
    await agent.runStep();
    expect(results(store)).toEqual([
      { content: 'Tool call refused: the extension flaky.ts could not check it: cannot read policy', is_error: true },
      { content: 'Tool call refused: the extension flaky.ts gave no valid decision', is_error: true },
    ]);
    expect(failures.map((failure) => failure.error.message)).toEqual([
      'cannot read policy',
      `before-tool-call answered {"block":true}, not { type: 'allow' } or { type: 'refuse', reason }`,
    ]);
  });

  it('drives the agent through extensionAgent: a turn, a system message, a compaction', async () => {
    const { agent, store } = setup([{ text: 'answer' }, { text: 'the summary' }]);
    const driven = extensionAgent(agent);
    await driven.addSystemMessage('Be brief.', 'replace');
    const step = await driven.runTurn('question');
    expect(step.stopReason).toBe('end_turn');
    expect(driven.model).toEqual({ provider: 'scripted', model: 'scripted-1' });
    await driven.compact();
    expect(store.entries.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type))).toEqual(['system', 'user', 'assistant', 'compaction']);
    expect(driven.conversation.messages.map((message) => message.role)).toEqual(['system', 'compaction']);
  });

  it('accepts the event names of AgentEvent', () => {
    const events: AgentEvent['type'][] = ['step-start', 'step-end', 'tool-execution-start', 'tool-execution-end', 'entries-persisted'];
    const host = new ExtensionHost({ tools: new ToolRegistry() });
    return expect(
      host.load(source('all.ts'), {
        default: ((panto) => {
          for (const event of events) panto.on(event, () => {});
        }) satisfies Extension,
      }),
    ).resolves.toMatchObject({
      status: 'loaded',
      events,
    });
  });
});

describe('headlessUI', () => {
  it('answers every question with its default at once, and passes output to its sinks', async () => {
    const lines: string[] = [];
    const ui = headlessUI({
      print: (text) => lines.push(`print ${text}`),
      notify: (message, level) => lines.push(`${level} ${message}`),
    });
    await expect(ui.confirm('Delete?')).resolves.toBe(false);
    await expect(ui.confirm('Keep?', { default: true })).resolves.toBe(true);
    await expect(ui.ask('Name?')).resolves.toBeUndefined();
    await expect(ui.ask('Name?', { default: 'ada' })).resolves.toBe('ada');
    ui.print('result');
    ui.notify('careful', 'warning');
    ui.notify('fyi');
    expect(lines).toEqual(['print result', 'warning careful', 'info fyi']);
  });
});

/**
 * The smallest host: ExtensionHost itself, modules imported from files, a memory store and
 * a headless UI — the reference the CLI's run of the same suite is compared with.
 */
describeExtensionHostConformance('ExtensionHost, hosted in process', {
  async run(setup) {
    const dir = await mkdtemp(join(tmpdir(), 'panto-ext-host-'));
    try {
      const tools = new ToolRegistry();
      const reported: string[] = [];
      const printed: string[] = [];
      const host = new ExtensionHost({
        tools,
        onError: (failure) => reported.push(`${failure.source.path}: ${failure.where}: ${failure.error.message}`),
      });
      const provider = new ScriptedProvider(setup.replies);
      const store = new MemoryStore();
      const agent = new Agent({ provider, tools, beforeToolCall: host.beforeToolCall }, { store });
      for (const name of Object.keys(setup.extensions).sort((a, b) => a.localeCompare(b))) {
        const file = join(dir, name);
        await writeFile(file, setup.extensions[name]!);
        const record = await host.load({ path: name, origin: dir }, await import(pathToFileURL(file).href));
        if (record.status === 'failed') reported.push(`${name}: ${record.error.message}`);
      }
      host.attach(agent, {
        agent: extensionAgent(agent),
        session: { id: store.sessionId(), file: undefined, entries: async () => structuredClone(store.entries) },
        ui: headlessUI({ print: (text) => printed.push(text), notify: (message) => reported.push(message) }),
      });
      for (const input of setup.inputs) {
        const command = /^\/(\S+)\s*(.*)$/.exec(input);
        if (command) await host.runCommand(command[1]!, command[2]!);
        else await extensionAgent(agent).runTurn(input);
      }
      await new Promise((resolve) => setImmediate(resolve));
      return {
        entries: store.entries,
        printed: printed.join('\n'),
        reported: reported.join('\n'),
        offeredTools: provider.requests[0]?.tools.map((tool) => tool.name) ?? [],
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
});
