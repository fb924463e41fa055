import { Agent, FSJSONLStore, MemoryStore, type Provider, type SessionStore } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { ScriptedProvider, type ScriptedReply } from '@panto/core/testing';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunningAgent } from '../entry/running-agent.js';
import { parseSlashCommand, runSlashCommand } from './slash-commands.js';
import type { ProviderChoice } from '../agent/provider-choice.js';
import { Terminal } from '../ui/terminal.js';
import { CapturedOutput } from '../../../../test/support/streams.js';
import { tempDir } from '../../../../test/support/temp-dir.js';

let cwd: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ path: cwd, cleanup } = await tempDir());
});
afterEach(async () => cleanup());

function setup(options: { replies?: ScriptedReply[]; store?: SessionStore; sessionFile?: () => string | undefined; exportsDir?: string } = {}) {
  const stdout = new CapturedOutput();
  const stderr = new CapturedOutput();
  const provider = new ScriptedProvider(options.replies ?? [], { name: 'openai', model: 'gpt-a' });
  const agent = new Agent({ provider }, { store: options.store ?? new MemoryStore({ sessionId: 'session-1' }) });
  const built: ProviderChoice[] = [];
  const app = new RunningAgent({
    agent,
    terminal: new Terminal(stdout, stderr),
    cwd,
    providerChoice: { provider: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
    providerFactory: (settings): Provider => {
      if (settings.model === 'broken') throw new Error('no API key for that');
      built.push(settings);
      return new ScriptedProvider([], {
        name: settings.provider,
        model: settings.model ?? `${settings.provider}-default`,
      });
    },
    sessionFile: options.sessionFile ?? (() => undefined),
    unsavedReason: 'not saved: --no-session',
    forceExit: () => {
      throw new Error('forceExit');
    },
    ...(options.exportsDir === undefined ? {} : { exportsDir: options.exportsDir }),
  });
  const command = (line: string) => runSlashCommand(parseSlashCommand(line)!, app);
  return { app, agent, provider, stdout, stderr, built, command };
}

describe('parseSlashCommand', () => {
  it('splits the name from its arguments', () => {
    expect(parseSlashCommand('/compact keep the API notes')).toEqual({ name: 'compact', args: 'keep the API notes' });
    expect(parseSlashCommand('  /SESSION  ')).toEqual({ name: 'session', args: '' });
  });

  it('does not take paths or other prompts for commands', () => {
    expect(parseSlashCommand('/etc/hosts is empty, why?')).toBeUndefined();
    expect(parseSlashCommand('//quit is a prompt')).toBeUndefined();
    expect(parseSlashCommand('hello /help')).toBeUndefined();
  });
});

describe('slash commands', () => {
  it('/quit and /exit end the session; the others go on', async () => {
    const { command } = setup();
    expect(await command('/quit')).toBe('quit');
    expect(await command('/exit')).toBe('quit');
    expect(await command('/help')).toBe('continue');
  });

  it('/help lists every command', async () => {
    const { command, stdout } = setup();
    await command('/help');
    for (const name of [
      '/compact [instructions]',
      '/export [path]',
      '/session',
      '/model [provider/model]',
      '/extensions',
      '/mcp',
      '/tree',
      '/fork',
      '/help',
      '/quit',
    ]) {
      expect(stdout.text).toContain(name);
    }
    // What /session shows, as docs/cli.md says: the context files and the cost too.
    expect(stdout.text).toMatch(/\/session .*AGENTS\.md.*cost/);
  });

  it('an unknown command is reported, not sent as a prompt', async () => {
    const { command, stderr, provider } = setup();
    expect(await command('/frobnicate now')).toBe('continue');
    expect(stderr.text).toContain('unknown command /frobnicate');
    expect(provider.requests).toHaveLength(0);
  });

  it('/session shows id, file, message count and usage so far', async () => {
    const { app, command, stdout } = setup({
      replies: [{ text: 'hi', usage: { input_tokens: 1500, output_tokens: 20, cache_read_tokens: 1000 } }],
    });
    await app.turn('hello', 'stream');
    await command('/session');
    expect(stdout.text).toContain('session   session-1\n');
    expect(stdout.text).toContain('file      (none: not saved: --no-session)\n');
    expect(stdout.text).toContain('model     openai/gpt-a at http://127.0.0.1:9/v1\n');
    expect(stdout.text).toContain('messages  2 (1 user, 1 assistant)\n');
    expect(stdout.text).toContain('usage     tokens: 1,500 in · 20 out · 1,000 cache read\n');
  });

  it("/session says the cost is unknown, and why, when the session's log cannot be read (never $0)", async () => {
    const store = new MemoryStore({ sessionId: 'session-1' });
    const { app, command, stdout } = setup({ store, replies: [{ text: 'hi', usage: { input_tokens: 1500, output_tokens: 20 } }] });
    await app.turn('hello', 'stream');
    store.loadTree = () => Promise.reject(new Error('EIO: i/o error, read'));
    await command('/session');
    expect(stdout.text).toContain("cost      unknown: the session's log could not be read (EIO: i/o error, read)\n");
  });

  it('/model shows the model, and switches provider and model', async () => {
    const { agent, command, stdout, stderr, built } = setup();
    await command('/model');
    expect(stdout.text.startsWith('model: openai/gpt-a at http://127.0.0.1:9/v1\n')).toBe(true);
    await command('/model anthropic/claude-x');
    expect(agent.provider).toMatchObject({ name: 'anthropic', model: 'claude-x' });
    expect(stderr.text).toContain("anthropic/claude-x is not in panto's catalog");
    // The base URL belonged to the other provider.
    expect(built.at(-1)).toEqual({ provider: 'anthropic', model: 'claude-x' });
    await command('/model openai/meta-llama/Llama-3');
    expect(agent.provider).toMatchObject({ name: 'openai', model: 'meta-llama/Llama-3' });
    await command('/model offline');
    expect(agent.provider).toMatchObject({ name: 'offline', model: 'offline-default' });
    await command('/model other-model');
    expect(agent.provider).toMatchObject({ name: 'offline', model: 'other-model' });
  });

  it('/model reports a provider it cannot build and keeps the current one', async () => {
    const { agent, command, stderr } = setup();
    await command('/model gemini/pro');
    expect(stderr.text).toContain('cannot switch to gemini/pro: /model: unknown provider "gemini"');
    await command('/model openai/broken');
    expect(stderr.text).toContain('no API key for that');
    expect(agent.provider).toMatchObject({ name: 'openai', model: 'gpt-a' });
  });

  it('/compact summarises through the provider, with the instructions, and persists the compaction', async () => {
    const store = new MemoryStore();
    const { app, agent, provider, command, stdout } = setup({
      store,
      replies: [{ text: 'answer' }, { text: 'the summary' }],
    });
    await agent.addSystemMessage('sys', 'replace');
    await app.turn('question', 'stream');
    await command('/compact keep numbers');
    expect(stdout.text).toContain('compacted 3 messages into a summary of 11 characters');
    expect(provider.requests[1]!.messages.at(-1)).toMatchObject({
      content: expect.stringContaining('Additional instructions: keep numbers'),
    });
    expect(agent.conversation.messages.map((message) => message.role)).toEqual(['system', 'compaction']);
    expect(store.entries.at(-1)).toMatchObject({ type: 'compaction', summary: 'the summary' });
  });

  it('/compact reports a failure and leaves the conversation as it was', async () => {
    const { app, agent, command, stderr } = setup({
      replies: [{ text: 'answer' }, { error: new Error('overloaded') }],
    });
    await app.turn('question', 'stream');
    await command('/compact');
    expect(stderr.text).toContain('compaction failed: overloaded; the conversation is unchanged');
    expect(agent.conversation.length).toBe(2);
  });

  it('/compact is aborted by Ctrl-C', async () => {
    const { app, agent, command, stderr } = setup({ replies: [{ text: 'answer' }, { hang: true }] });
    await app.turn('question', 'stream');
    const running = command('/compact');
    await new Promise((resolve) => setTimeout(resolve, 0));
    app.interrupt();
    await running;
    expect(stderr.text).toContain('compaction aborted');
    expect(agent.conversation.length).toBe(2);
  });

  it('/export copies the session file byte for byte to <sessionId>.jsonl (in the working folder when no exports folder is set)', async () => {
    const store = await FSJSONLStore.create(join(cwd, 'sessions'), { cwd });
    const { app, command, stdout } = setup({
      store,
      sessionFile: () => store.getSessionFile(),
      replies: [{ text: 'ok' }],
    });
    await app.turn('hello', 'stream');
    await command('/export');
    const target = join(cwd, `${store.sessionId()}.jsonl`);
    expect(stdout.text).toContain(`exported 2 entries`);
    expect(stdout.text).toContain(`to ${target}`);
    expect(await readFile(target)).toEqual(await readFile(store.getSessionFile()));
  });

  it('/export with no path writes <sessionId>.jsonl into the exports folder, not the working folder', async () => {
    const store = await FSJSONLStore.create(join(cwd, 'sessions'), { cwd });
    const exportsDir = join(cwd, 'home', 'exports');
    const { app, command, stdout } = setup({
      store,
      sessionFile: () => store.getSessionFile(),
      replies: [{ text: 'ok' }],
      exportsDir,
    });
    await app.turn('hello', 'stream');
    await command('/export');
    const target = join(exportsDir, `${store.sessionId()}.jsonl`);
    expect(stdout.text).toContain(`to ${target}`);
    expect(await readFile(target)).toEqual(await readFile(store.getSessionFile()));
    await command('/export here.jsonl');
    expect(stdout.text).toContain(`to ${join(cwd, 'here.jsonl')}`);
  });

  it('/export writes to a given path, creating folders, and refuses the session file itself', async () => {
    const store = await FSJSONLStore.create(join(cwd, 'sessions'), { cwd });
    const { app, command, stderr } = setup({
      store,
      sessionFile: () => store.getSessionFile(),
      replies: [{ text: 'ok' }],
    });
    await app.turn('hello', 'stream');
    await command('/export out/dir/s.jsonl');
    expect(await readFile(join(cwd, 'out/dir/s.jsonl'))).toEqual(await readFile(store.getSessionFile()));
    await command(`/export ${store.getSessionFile()}`);
    expect(stderr.text).toContain('is the session file itself');
  });

  it('/export into a folder (an existing one, or a path ending in /) writes <sessionId>.jsonl inside it', async () => {
    const store = await FSJSONLStore.create(join(cwd, 'sessions'), { cwd });
    const { app, command, stdout, stderr } = setup({
      store,
      sessionFile: () => store.getSessionFile(),
      replies: [{ text: 'ok' }],
    });
    await app.turn('hello', 'stream');
    await mkdir(join(cwd, 'backups'));
    await command('/export backups');
    expect(stderr.text).toBe('');
    expect(await readFile(join(cwd, 'backups', `${store.sessionId()}.jsonl`))).toEqual(await readFile(store.getSessionFile()));
    await command('/export new/place/');
    expect(stdout.text).toContain(`to ${join(cwd, 'new', 'place', `${store.sessionId()}.jsonl`)}`);
  });

  it('/export of an unsaved session encodes the live conversation in the session format', async () => {
    const { app, agent, command } = setup({ replies: [{ text: 'ok' }] });
    await agent.addSystemMessage('sys', 'replace');
    await app.turn('hello', 'stream');
    await command('/export x.jsonl');
    const decoded = decodeSession(await readFile(join(cwd, 'x.jsonl')), 'x.jsonl');
    expect(decoded.header).toMatchObject({ id: 'session-1', cwd });
    expect(decoded.entries.map((entry) => entry.type === 'message' && entry.message)).toEqual([...agent.conversation.messages]);
    const reopened = await FSJSONLStore.open(join(cwd, 'x.jsonl'));
    expect((await reopened.loadConversation()).conversation.messages).toEqual(agent.conversation.messages);
  });
});
