/**
 * MCPServers (@panto/core/mcp) against a real MCP server nobody here wrote — the
 * "everything" server from @modelcontextprotocol/server-everything — over stdio and over
 * Streamable HTTP on loopback: its tools as panto tools, an agent calling them, and every
 * way a server fails (does not start, exits, never answers, dies mid-session, forgets the
 * session) as a notice and an error result, never an exception.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Agent, MemoryStore, ToolRegistry, type Tool, type ToolOutput } from '@panto/core';
import { MCPServers, type MCPNotice, type MCPServerConfig } from '@panto/core/mcp';
import * as sdk from '@panto/core/mcp/sdk';
import { ScriptedProvider, waitUntil } from '@panto/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { EVERYTHING, everythingStdio, startEverythingHTTP, type RunningHTTPServer } from './mcp-harness.js';

const DEEP_SERVER = fileURLToPath(new URL('./support/deep-mcp-server.mjs', import.meta.url));
const context = () => ({ signal: new AbortController().signal, toolCallId: 'call-1' });
const opened: MCPServers[] = [];
const servers: RunningHTTPServer[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((mcp) => mcp.close()));
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

function stdio(name: string, command: string, args: string[] = []): MCPServerConfig {
  return { type: 'stdio', name, command, args, env: {}, source: 'test' };
}

function pool(configs: MCPServerConfig[], options: Partial<ConstructorParameters<typeof MCPServers>[1]> = {}): { mcp: MCPServers; notices: string[] } {
  const notices: string[] = [];
  const mcp = new MCPServers(configs, { sdk, onNotice: (notice: MCPNotice) => notices.push(notice.message), ...options });
  opened.push(mcp);
  return { mcp, notices };
}

function named(tools: Tool[], name: string): Tool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((candidate) => candidate.name).join(', ')}`);
  return tool;
}

function text(output: ToolOutput): string {
  return typeof output === 'string' ? output : output.content;
}

/** Pids of this process's children whose command line mentions `marker` (Linux /proc). */
function childPids(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

describe('MCPServers and the everything server', { timeout: 60_000 }, () => {
  it('over stdio: offers its tools as mcp__everything__*, runs echo and get-sum, keeps an image, and starts it without the provider keys', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-must-not-leak';
    try {
      const { command, args } = everythingStdio();
      const { mcp, notices } = pool([stdio('everything', command, args)]);
      const tools = await mcp.tools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-sum', 'mcp__everything__get-tiny-image']),
      );
      expect(named(tools, 'mcp__everything__get-sum').input_schema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
      });
      expect(await named(tools, 'mcp__everything__echo').execute({ message: 'hello' }, context())).toEqual({ content: 'Echo: hello' });
      expect(await named(tools, 'mcp__everything__get-sum').execute({ a: 2, b: 40 }, context())).toEqual({ content: 'The sum of 2 and 40 is 42.' });
      const image = await named(tools, 'mcp__everything__get-tiny-image').execute({}, context());
      expect(image).toMatchObject({ images: [{ type: 'image', media_type: 'image/png' }] });
      const env = text(await named(tools, 'mcp__everything__get-env').execute({}, context()));
      expect(env).toContain('"PATH"');
      expect(env).not.toContain('sk-ant-must-not-leak');
      expect(notices).toEqual([]);
      expect(mcp.info()).toMatchObject([{ name: 'everything', transport: 'stdio', status: 'connected', source: 'test' }]);
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it('over Streamable HTTP: the same tools, with the configured headers, and /mcp shows the URL but never the headers', async () => {
    const server = await startEverythingHTTP();
    servers.push(server);
    const { mcp } = pool([{ type: 'http', name: 'web', url: `${server.url}?token=hidden`, headers: { Authorization: 'Bearer s3cret' }, source: 'test' }]);
    const tools = await mcp.tools();
    expect(await named(tools, 'mcp__web__echo').execute({ message: 'over http' }, context())).toEqual({ content: 'Echo: over http' });
    expect(await named(tools, 'mcp__web__get-sum').execute({ a: 1.5, b: 1 }, context())).toEqual({ content: 'The sum of 1.5 and 1 is 2.5.' });
    // Each tool says where it comes from and what its server says of it: what the service's approvals read.
    const byName = new Map(tools.map((tool) => [tool.name, tool.mcp]));
    expect(byName.get('mcp__web__echo')).toMatchObject({ server: 'web', tool: 'echo', annotations: { readOnlyHint: true } });
    expect(byName.get('mcp__web__toggle-simulated-logging')).toMatchObject({
      server: 'web',
      tool: 'toggle-simulated-logging',
      annotations: { readOnlyHint: false },
    });
    const info = JSON.stringify(mcp.info());
    expect(info).toContain(`"target":"${server.url}"`);
    expect(info).not.toContain('s3cret');
    expect(info).not.toContain('hidden');
  });

  it('an agent calls an MCP tool through the model, and the result is persisted like any other', async () => {
    const { command, args } = everythingStdio();
    const { mcp } = pool([stdio('everything', command, args)]);
    const store = new MemoryStore();
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 'c1', name: 'mcp__everything__get-sum', input: { a: 20, b: 22 } }] }, { text: '42' }]);
    const agent = new Agent({ provider, tools: new ToolRegistry(await mcp.tools()) }, { store });
    await agent.submitUserMessage('add 20 and 22');
    await agent.runStep();
    expect(provider.requests[0]!.tools.map((tool) => tool.name)).toContain('mcp__everything__get-sum');
    expect(store.entries[2]).toMatchObject({
      message: { role: 'tool_result', tool_name: 'mcp__everything__get-sum', content: 'The sum of 20 and 22 is 42.', is_error: false },
    });
  });

  it.each([5_000, 100_000])('answers a result nested %i levels deep with an error result, and offers no tool whose schema nests too deep', async (levels) => {
    const { mcp, notices } = pool([stdio('deep', process.execPath, [DEEP_SERVER])]);
    const tools = await mcp.tools();
    expect(tools.map((tool) => tool.name)).toEqual(['mcp__deep__deep']);
    const store = new MemoryStore();
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 'c1', name: 'mcp__deep__deep', input: { levels } }] }, { text: 'ok' }]);
    const agent = new Agent({ provider, tools: new ToolRegistry(tools) }, { store });
    await agent.submitUserMessage('go deep');
    await agent.runStep();
    expect(store.entries[2]).toMatchObject({
      message: {
        role: 'tool_result',
        is_error: true,
        content: "The MCP server's result was refused: it is nested deeper than 128 levels, the limit for JSON from outside panto.",
      },
    });
    expect(() => JSON.stringify(store.entries)).not.toThrow();
    expect(notices).toEqual([]);
  });

  it('reports a server that cannot start, one that exits, and one that never answers, and keeps the good one', async () => {
    const { command, args } = everythingStdio();
    const { mcp, notices } = pool(
      [
        stdio('everything', command, args),
        stdio('missing', 'panto-no-such-command'),
        stdio('exits', process.execPath, ['-e', 'console.error("fatal: no API token"); process.exit(3)']),
        stdio('silent', process.execPath, ['-e', 'setInterval(() => {}, 1000)']),
      ],
      // Long enough for the everything server to start on a loaded machine; the silent one waits it out.
      { connectTimeoutMs: 6000 },
    );
    const tools = await mcp.tools();
    expect(new Set(tools.map((tool) => tool.name.split('__')[1]))).toEqual(new Set(['everything']));
    expect(notices.sort((a, b) => a.localeCompare(b))).toEqual([
      'MCP server "exits" could not start: the server exited (its last words: fatal: no API token)',
      'MCP server "missing" could not start: spawn panto-no-such-command ENOENT',
      'MCP server "silent" could not start: no answer within 6 s',
    ]);
    expect(mcp.info().map((server) => [server.name, server.status])).toEqual([
      ['everything', 'connected'],
      ['missing', 'failed'],
      ['exits', 'failed'],
      ['silent', 'failed'],
    ]);
    // The silent one was stopped, not left running.
    await waitUntil(() => childPids('setInterval').length === 0, { message: 'the silent server to be gone', timeoutMs: 5000 });
  });

  it('turns a server that dies mid-session into a notice and error results, and starts it again later', async () => {
    const { command, args } = everythingStdio();
    const { mcp, notices } = pool([stdio('everything', command, args)], { retryAfterMs: 0 });
    const echo = named(await mcp.tools(), 'mcp__everything__echo');
    const [pid] = childPids(EVERYTHING);
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    await waitUntil(() => notices.length > 0, { message: 'the notice that the server stopped', timeoutMs: 5000 });
    // With the last thing it wrote to stderr, which for a crash is usually the reason.
    expect(notices).toEqual([expect.stringMatching(/^MCP server "everything" stopped: the server exited \(its last words: .+\)$/)]);
    expect(await echo.execute({ message: 'anyone?' }, context())).toEqual({
      content: expect.stringMatching(/^MCP server "everything" is not available: the server exited .*\. Its tools cannot be used now\.$/),
      is_error: true,
    });
    // The next time tools are asked for (the next turn), it is started again; the tool is the same object.
    const again = named(await mcp.tools(), 'mcp__everything__echo');
    expect(again).toBe(echo);
    expect(await echo.execute({ message: 'back' }, context())).toEqual({ content: 'Echo: back' });
  });

  it('gives an error result for a call that takes too long, and lets the turn abort one', async () => {
    const { command, args } = everythingStdio();
    const { mcp } = pool([stdio('everything', command, args)], { callTimeoutMs: 700 });
    const slow = named(await mcp.tools(), 'mcp__everything__trigger-long-running-operation');
    expect(await slow.execute({ duration: 5, steps: 5 }, context())).toEqual({
      content: 'MCP server "everything" did not answer trigger-long-running-operation within 700 ms',
      is_error: true,
    });
    const controller = new AbortController();
    const running = slow.execute({ duration: 5, steps: 5 }, { signal: controller.signal, toolCallId: 'c2' });
    controller.abort(new Error('Ctrl-C'));
    await expect(running).rejects.toThrow('Ctrl-C');
    // The server is still fine.
    expect(await named(await mcp.tools(), 'mcp__everything__echo').execute({ message: 'still here' }, context())).toEqual({ content: 'Echo: still here' });
  });

  it('starts a new session when an HTTP server forgot its session (it restarted), and sends the refused call again', async () => {
    const first = await startEverythingHTTP();
    const { mcp, notices } = pool([{ type: 'http', name: 'web', url: first.url, headers: {}, source: 'test' }]);
    const echo = named(await mcp.tools(), 'mcp__web__echo');
    expect(await echo.execute({ message: 'one' }, context())).toEqual({ content: 'Echo: one' });
    await first.stop();
    const second = await startEverythingHTTP(first.port);
    servers.push(second);
    expect(await echo.execute({ message: 'two' }, context())).toEqual({ content: 'Echo: two' });
    expect(notices).toEqual([]);
  });

  it("takes the credential out of a failed call's error result when the server's refusal quotes the header it was sent", async () => {
    const token = 'Bearer mcp-0123456789abcdef0123456789';
    const first = await startEverythingHTTP();
    const { mcp } = pool([{ type: 'http', name: 'web', url: first.url, headers: { authorization: token }, source: 'test' }]);
    const echo = named(await mcp.tools(), 'mcp__web__echo');
    await first.stop();
    // In its place, a server that refuses every request and quotes back the header it got.
    const refusing = createServer((request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `invalid token: ${request.headers.authorization}` }));
    });
    await new Promise<void>((resolve) => refusing.listen(first.port, '127.0.0.1', resolve));
    try {
      const output = await echo.execute({ message: 'hello?' }, context());
      expect(output).toMatchObject({ is_error: true });
      expect(text(output)).toMatch(/^MCP server "web" failed to run echo: .*invalid token: Bearer \[redacted\]/);
      expect(text(output)).not.toContain('mcp-0123456789');
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });

  it('gives an error result, not an exception, when an HTTP server is gone', async () => {
    const server = await startEverythingHTTP();
    const { mcp } = pool([{ type: 'http', name: 'web', url: server.url, headers: {}, source: 'test' }], { retryAfterMs: 60_000 });
    const echo = named(await mcp.tools(), 'mcp__web__echo');
    await server.stop();
    const output = await echo.execute({ message: 'hello?' }, context());
    expect(output).toMatchObject({ is_error: true });
    expect(text(output)).toMatch(/^MCP server "web" (failed to run echo|is not available)/);
  });
});
