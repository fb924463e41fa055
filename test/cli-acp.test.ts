/**
 * `panto acp` driven by the official ACP library's client side over a spawned process, as an
 * editor drives it, against the fake LLM server: a streamed answer, tool calls that ask and
 * are allowed or rejected, a cancel mid-turn, loading a session the terminal started (and the
 * terminal resuming one the editor started), and a folder whose code is not trusted.
 */
import type { SessionEntry } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { sessionDirFor } from '@panto/cli';
import { existsSync, realpathSync } from 'node:fs';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acpClients, chunkText, select, updatesOf } from './acp-harness.js';
import { fakeServerSandbox, jsonlFiles, requestBody, runPanto, toolResults, until } from './cli-harness.js';
import { markers, projectWithCode } from './support/folder-code.js';

const e2e = fakeServerSandbox();
// Started where the editor starts it, not in the sessions' folder.
const acp = acpClients(e2e, () => e2e.box.root);

const sessionDir = () => sessionDirFor(e2e.box.cwd, { PANTO_HOME: e2e.box.home });

async function entries(sessionId: string): Promise<SessionEntry[]> {
  const file = join(sessionDir(), `${sessionId}.jsonl`);
  return decodeSession(await readFile(file), file).entries;
}

describe('panto acp', { timeout: 90_000 }, () => {
  it('initialize: protocol version 1, session/load, list, resume and close, text and embedded-context prompts, MCP over http', async () => {
    const client = await acp();
    expect(client.initialized).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: false },
        sessionCapabilities: { list: {}, resume: {}, close: {} },
      },
      agentInfo: { name: 'panto', version: expect.any(String) },
    });
  });

  it('a prompt streams its answer as message chunks and ends end_turn; the session is a panto session that panto -r resumes and --list shows', async () => {
    e2e.server.enqueue({ text: 'The answer is forty-two.', usage: { input: 11, output: 6 } }, { text: 'Still here.' });
    const client = await acp();
    const { sessionId } = await client.connection.newSession({ cwd: e2e.box.cwd, mcpServers: [] });
    const response = await client.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'what is the answer?' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(updatesOf(client, sessionId, 'agent_message_chunk').length).toBeGreaterThan(1);
    expect(chunkText(client, sessionId, 'agent_message_chunk')).toBe('The answer is forty-two.');

    // The ACP session id is the panto session: its file, its prompt entry, its usage.
    const [file] = await jsonlFiles(sessionDir());
    expect(basename(file!, '.jsonl')).toBe(sessionId);
    const prompt = (await entries(sessionId)).find((entry) => entry.type === 'message' && entry.message.role === 'user');
    expect(response._meta).toMatchObject({ panto: { prompt_id: prompt?.id, usage: { input_tokens: 11, output_tokens: 6 } } });
    await client.close();

    const { args, env } = e2e.openai();
    const list = await runPanto(['--list'], { cwd: e2e.box.cwd, env });
    expect(list.stdout).toContain('what is the answer?');
    const resumed = await runPanto([...args, '-r', sessionId, '-p', 'still there?'], { cwd: e2e.box.cwd, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('Still here.\n');
    expect(requestBody(e2e.server.requests[1])).toContain('The answer is forty-two.');
    expect(await jsonlFiles(sessionDir())).toHaveLength(1);
  });

  it("a call that needs approval asks the client with the terminal's choices: allowed, it runs (pending → in_progress → completed, with its diff) and is checkpointed; rejected, it never runs and the model hears why", async () => {
    e2e.server.enqueue(
      { text: 'Writing a.', toolCalls: [{ id: 'call_ok', name: 'write', input: { path: 'a.txt', content: 'hello\n' } }] },
      { text: 'Now b.', toolCalls: [{ id: 'call_no', name: 'write', input: { path: 'b.txt', content: 'nope\n' } }] },
      { text: 'Done.' },
    );
    const { cwd } = e2e.box;
    const client = await acp(['--sandbox', 'off']);
    const { sessionId } = await client.connection.newSession({ cwd, mcpServers: [] });
    client.answer = (request) => select(request.toolCall.toolCallId === 'call_ok' ? 'allow_once' : 'deny');
    const response = await client.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'write two files' }] });
    expect(response.stopReason).toBe('end_turn');

    expect(client.permissionRequests.map((request) => request.toolCall.toolCallId)).toEqual(['call_ok', 'call_no']);
    expect(client.permissionRequests[0]).toEqual({
      sessionId,
      toolCall: {
        toolCallId: 'call_ok',
        title: 'write a.txt',
        kind: 'edit',
        status: 'pending',
        rawInput: { path: 'a.txt', content: 'hello\n' },
        locations: [{ path: join(cwd, 'a.txt') }],
        content: [{ type: 'diff', path: join(cwd, 'a.txt'), oldText: null, newText: 'hello\n' }],
      },
      options: [
        { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
        // As the terminal's [a]: writes in this folder only (its real path).
        { optionId: 'allow_session', name: `Allow write in ${realpathSync(cwd)} for this session`, kind: 'allow_always' },
        { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
      ],
    });
    expect(await readFile(join(cwd, 'a.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(join(cwd, 'b.txt'))).toBe(false);

    const statuses = (id: string) =>
      client.updates.flatMap(({ update }) =>
        (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') && update.toolCallId === id && update.status
          ? [update.status]
          : [],
      );
    expect(statuses('call_ok')).toEqual(['pending', 'in_progress', 'completed']);
    expect(statuses('call_no')).toEqual(['pending', 'failed']);
    const done = updatesOf(client, sessionId, 'tool_call_update').find((update) => update.toolCallId === 'call_ok' && update.status === 'completed');
    expect(done?.content?.[0]).toEqual({ type: 'diff', path: join(cwd, 'a.txt'), oldText: null, newText: 'hello\n' });
    expect(toolResults(e2e.server.requests[2]).call_no).toBe('[tool error] Tool call refused: the user denied it');
    expect(chunkText(client, sessionId, 'agent_message_chunk')).toBe('Writing a.Now b.Done.');

    // Checkpoints were taken as in the terminal: rewinding to before the prompt takes a.txt away.
    const promptId = (response._meta as { panto: { prompt_id: string } }).panto.prompt_id;
    await client.close();
    const { args, env } = e2e.openai();
    const rewound = await runPanto([...args, '-r', sessionId, '--rewind', promptId], { cwd, env });
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(existsSync(join(cwd, 'a.txt'))).toBe(false);
  });

  it('"allow for this session" is remembered for the session: the next write in that folder runs without asking', async () => {
    e2e.server.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'write', input: { path: 'one.txt', content: '1' } }] },
      { toolCalls: [{ id: 'call_2', name: 'write', input: { path: 'two.txt', content: '2' } }] },
      { text: 'Both written.' },
    );
    const client = await acp(['--sandbox', 'off']);
    const { sessionId } = await client.connection.newSession({ cwd: e2e.box.cwd, mcpServers: [] });
    client.answer = () => select('allow_session');
    expect((await client.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'write both' }] })).stopReason).toBe('end_turn');
    expect(client.permissionRequests).toHaveLength(1);
    expect(await readFile(join(e2e.box.cwd, 'two.txt'), 'utf8')).toBe('2');
  });

  it('session/cancel mid-answer ends the prompt cancelled, keeps what it committed, and the session goes on', async () => {
    e2e.server.enqueue({ text: 'Once upon a time there was a folder', pauseAfterDeltas: 2 }, { text: 'After the cancel.' });
    const client = await acp();
    const { sessionId } = await client.connection.newSession({ cwd: e2e.box.cwd, mcpServers: [] });
    const pending = client.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'tell me a story' }] });
    await until('the answer to start', () => chunkText(client, sessionId, 'agent_message_chunk') !== '');
    await client.connection.cancel({ sessionId });
    expect((await pending).stopReason).toBe('cancelled');

    const messages = (await entries(sessionId)).flatMap((entry) => (entry.type === 'message' ? [entry.message] : []));
    expect(messages.find((message) => message.role === 'user')).toMatchObject({ content: 'tell me a story' });
    const partial = messages.find((message) => message.role === 'assistant');
    expect(partial).toMatchObject({ stop_reason: 'aborted' });
    expect(chunkText(client, sessionId, 'agent_message_chunk')).toContain('Once');

    const next = await client.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'go on' }] });
    expect(next.stopReason).toBe('end_turn');
    expect(requestBody(e2e.server.requests[1])).toContain('tell me a story');
  });

  it('a cancel while a permission request is open withdraws it: the call never runs and the prompt ends cancelled', async () => {
    e2e.server.enqueue({ toolCalls: [{ id: 'call_w', name: 'write', input: { path: 'never.txt', content: 'x' } }] });
    const client = await acp(['--sandbox', 'off']);
    const { sessionId } = await client.connection.newSession({ cwd: e2e.box.cwd, mcpServers: [] });
    // The user does not answer; the editor answers cancelled once it sent session/cancel (as ACP says it must).
    let cancelled: () => void = () => undefined;
    client.answer = () => new Promise((resolve) => (cancelled = () => resolve({ outcome: { outcome: 'cancelled' } })));
    const pending = client.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'write it' }] });
    await until('the permission request', () => client.permissionRequests.length === 1);
    await client.connection.cancel({ sessionId });
    cancelled();
    expect((await pending).stopReason).toBe('cancelled');
    expect(existsSync(join(e2e.box.cwd, 'never.txt'))).toBe(false);
  });

  it('session/load replays a session the terminal started (prompt, answer, tool call) before it answers, then continues it; session/list lists it and session/resume continues it without a replay', async () => {
    const { cwd } = e2e.box;
    await writeFile(join(cwd, 'notes.txt'), 'hi\n');
    e2e.server.enqueue(
      { text: 'Reading.', toolCalls: [{ id: 'call_r', name: 'read', input: { path: 'notes.txt' } }] },
      { text: 'It says hi.' },
      { text: 'Loaded and answering.' },
    );
    const { args, env } = e2e.openai();
    const terminal = await runPanto([...args, '-p', 'read notes.txt'], { cwd, env });
    expect(terminal.code, terminal.stderr).toBe(0);
    const [file] = await jsonlFiles(sessionDir());
    const sessionId = basename(file!, '.jsonl');

    const client = await acp();
    await client.connection.loadSession({ sessionId, cwd, mcpServers: [] });
    // Every update of the replay arrived before the response.
    expect(chunkText(client, sessionId, 'user_message_chunk')).toBe('read notes.txt');
    expect(chunkText(client, sessionId, 'agent_message_chunk')).toBe('Reading.It says hi.');
    expect(updatesOf(client, sessionId, 'tool_call')).toEqual([
      expect.objectContaining({
        toolCallId: 'call_r',
        title: 'read notes.txt',
        kind: 'read',
        status: 'completed',
        locations: [{ path: join(cwd, 'notes.txt') }],
      }),
    ]);
    expect(client.updates.map(({ update }) => update.sessionUpdate)).toEqual(['user_message_chunk', 'agent_message_chunk', 'tool_call', 'agent_message_chunk']);

    const response = await client.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(requestBody(e2e.server.requests[2])).toContain('It says hi.');
    expect(await jsonlFiles(sessionDir())).toEqual([file]);

    // The folder's sessions, as an editor's history lists them; another panto resumes without a replay.
    expect(await client.connection.listSessions({ cwd })).toEqual({
      sessions: [{ sessionId, cwd, title: 'read notes.txt', updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }],
    });
    await client.close();
    const other = await acp();
    await other.connection.resumeSession({ sessionId, cwd });
    expect(other.updates).toEqual([]);
  });

  it('session/load of a session the folder does not have, or of something that is not a session id, is an error that opens nothing', async () => {
    const client = await acp();
    const { cwd } = e2e.box;
    await expect(client.connection.loadSession({ sessionId: '01970000-0000-7000-8000-000000000000', cwd, mcpServers: [] })).rejects.toMatchObject({
      code: -32002,
    });
    await expect(client.connection.loadSession({ sessionId: '../../etc/passwd', cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
    await expect(client.connection.prompt({ sessionId: '01970000-0000-7000-8000-000000000000', prompt: [{ type: 'text', text: 'x' }] })).rejects.toMatchObject({
      code: -32002,
    });
    expect(await jsonlFiles(sessionDir())).toEqual([]);
  });

  it("an untrusted folder's own code (extensions, MCP servers) never runs because an editor opened it; --trust runs it", async () => {
    const { cwd } = e2e.box;
    await projectWithCode(cwd);
    e2e.server.enqueue({ text: 'Hi.' }, { text: 'Hi, trusted.' });
    const client = await acp();
    const { sessionId } = await client.connection.newSession({ cwd, mcpServers: [] });
    expect((await client.connection.prompt({ sessionId, prompt: [{ type: 'text', text: 'hello' }] })).stopReason).toBe('end_turn');
    expect(markers(cwd)).toEqual([]);
    expect(client.stderr).toContain("panto: skipped this folder's own code (this folder is not trusted)");
    expect(existsSync(join(e2e.box.home, 'trusted-folders.json'))).toBe(false);
    await client.close();

    const trusted = await acp(['--trust']);
    const second = await trusted.connection.newSession({ cwd, mcpServers: [] });
    expect((await trusted.connection.prompt({ sessionId: second.sessionId, prompt: [{ type: 'text', text: 'hello' }] })).stopReason).toBe('end_turn');
    await until('both markers to be written', () => markers(cwd).length === 2);
  });

  it('a folder trusted in the terminal runs its code for an editor too — until a file of that code changes, when the session skips it as -p does', async () => {
    const { cwd } = e2e.box;
    await projectWithCode(cwd);
    const { args, env } = e2e.openai();
    expect((await runPanto(args, { cwd, env, stdin: '/trust yes\n' })).code).toBe(0);
    expect(markers(cwd)).toEqual([]);

    const client = await acp();
    await client.connection.newSession({ cwd, mcpServers: [] });
    await until('the trusted code to run for the editor', () => markers(cwd).length === 2);
    await Promise.all(markers(cwd).map((name) => rm(join(cwd, name))));

    await appendFile(join(cwd, '.panto', 'extensions', 'marker.ts'), '// changed by a command\n');
    await client.connection.newSession({ cwd, mcpServers: [] });
    await until('the skip to be said', () => client.stderr.includes('changed since you trusted the folder'));
    expect(client.stderr).toContain("skipped this folder's own code");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(markers(cwd)).toEqual([]);
  });
});
