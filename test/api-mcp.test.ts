/**
 * The HTTP API with MCP servers: the real app on loopback (DynamoDB Local, s3rver, a fake
 * model behind the real SDK), the tools of the "everything" server over Streamable HTTP
 * next to current_time. Connected on the first turn and kept; every failure of a server
 * is a tool error in a 200, never a 5xx, and never logs a header.
 */
import type { Message, ToolResultMessage } from '@panto/core';
import type { RecordedRequest } from '@panto/core/testing';
import { serviceMCPServers, toolsWithMCP } from '@panto/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSSE, startApi, type ApiHarness } from './api-harness.js';
import { startEverythingHTTP, type RunningHTTPServer } from './mcp-harness.js';

interface TurnJson {
  messages: Message[];
  stop_reason: string;
  incomplete: boolean;
}

const SECRET = 'Bearer mcp-s3cret-token';
let everything: RunningHTTPServer;
let api: ApiHarness;
const warnings: string[] = [];

beforeAll(async () => {
  everything = await startEverythingHTTP();
  const mcp = serviceMCPServers(
    [
      { type: 'http', name: 'everything', url: everything.url, headers: { Authorization: SECRET }, source: 'test' },
      // Nothing listens there: connecting fails at once.
      { type: 'http', name: 'gone', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: SECRET }, source: 'test' },
    ],
    (message) => warnings.push(message),
  );
  api = await startApi('api-mcp', { tools: toolsWithMCP(mcp) });
});
afterAll(async () => {
  await api?.close();
  await everything?.stop();
});

function toolNames(request: RecordedRequest | undefined): string[] {
  return ((request?.body as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((tool) => tool.name);
}

function results(turn: TurnJson): [string, string, boolean][] {
  return turn.messages.flatMap((message) =>
    message.role === 'tool_result' ? [[message.tool_name, message.content, message.is_error] as [string, string, boolean]] : [],
  );
}

describe('the service with MCP servers', { timeout: 60_000 }, () => {
  it("offers the everything server's tools alongside current_time, and runs echo and get-sum in a turn", async () => {
    const { id } = await api.newSession();
    api.fake.enqueue(
      {
        toolCalls: [
          { id: 'toolu_1', name: 'mcp__everything__echo', input: { message: 'from the service' } },
          { id: 'toolu_2', name: 'mcp__everything__get-sum', input: { a: 40, b: 2 } },
        ],
      },
      { text: 'Echoed; the sum is 42.' },
    );
    const response = await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'echo and add' });
    expect(response.status).toBe(200);
    const turn = (await response.json()) as TurnJson;
    expect(turn).toMatchObject({ stop_reason: 'end_turn', incomplete: false });
    expect(results(turn)).toEqual([
      ['mcp__everything__echo', 'Echo: from the service', false],
      ['mcp__everything__get-sum', 'The sum of 40 and 2 is 42.', false],
    ]);
    const offered = toolNames(api.fake.requests.at(-2));
    expect(offered[0]).toBe('current_time');
    expect(offered).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-sum']));
    // The server that cannot be reached is left out of the turn, and said so once, without its headers.
    expect(offered.some((name) => name.startsWith('mcp__gone__'))).toBe(false);
    expect(warnings).toEqual([expect.stringMatching(/^MCP server "gone" could not start: /)]);
    expect(warnings.join('\n')).not.toContain('s3cret');
  });

  it('streams a turn that calls an MCP tool, and reuses the connection', async () => {
    const { id } = await api.newSession();
    api.fake.enqueue({ toolCalls: [{ id: 'toolu_3', name: 'mcp__everything__echo', input: { message: 'streamed' } }] }, { text: 'done' });
    const response = await api.call('alice', 'POST', `/sessions/${id}/messages/stream`, { text: 'echo, streamed' });
    expect(response.status).toBe(200);
    const events = parseSSE(await response.text());
    const stored = events.filter((event) => event.event === 'message').map((event) => (event.data as { message: Message }).message);
    expect(stored.find((message): message is ToolResultMessage => message.role === 'tool_result')).toMatchObject({
      content: 'Echo: streamed',
      is_error: false,
    });
    // One session on the everything server for both turns: it was connected once.
    expect(everything.output().match(/Session initialized with ID/g)).toHaveLength(1);
  });

  it('answers 200 with an error result when the MCP server is down mid-session, and the session goes on', async () => {
    const { id } = await api.newSession();
    await everything.stop();
    api.fake.enqueue({ toolCalls: [{ id: 'toolu_4', name: 'mcp__everything__echo', input: { message: 'anyone?' } }] }, { text: 'The tool failed.' });
    const response = await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'echo once more' });
    expect(response.status).toBe(200);
    const turn = (await response.json()) as TurnJson;
    expect(turn.stop_reason).toBe('end_turn');
    const [result] = results(turn);
    expect(result?.[0]).toBe('mcp__everything__echo');
    expect(result?.[1]).toMatch(/^MCP server "everything" /);
    expect(result?.[2]).toBe(true);
    expect(api.logged).toEqual([]);
    expect(warnings.join('\n')).not.toContain('s3cret');
  });
});
