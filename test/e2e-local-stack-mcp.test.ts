/**
 * The local stack with an MCP server: `scripts/start.ts` (as `npm start` runs it) with
 * PANTO_MCP_SERVERS naming the "everything" server over Streamable HTTP on loopback; a fake
 * model calls its echo and get-sum tools; when the server goes away, a turn that calls it
 * is still a 200, with an error result.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@panto/core';
import { FakeLLMServer } from '@panto/core/testing';
import { localSecretFile, readLocalSecret, signLocalToken } from '@panto/functions/local';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHTTP, type RunningHTTPServer } from './mcp-harness.js';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';
import { startLocalStack, type LocalStack } from './local-stack-harness.js';

const HEADER_SECRET = 'Bearer local-stack-s3cret';

let aws: LocalAws;
let fake: FakeLLMServer;
let everything: RunningHTTPServer;
let dataDir: string;
let server: LocalStack;
let url: string;
let token: string;

beforeAll(async () => {
  aws = await localAws('e2emcp');
  fake = await FakeLLMServer.start();
  everything = await startEverythingHTTP();
  dataDir = await mkdtemp(join(tmpdir(), 'panto-e2e-mcp-'));
  server = await startLocalStack({
    aws,
    dataDir,
    fake,
    model: 'claude-e2e',
    env: { PANTO_MCP_SERVERS: JSON.stringify({ mcpServers: { everything: { url: everything.url, headers: { Authorization: HEADER_SECRET } } } }) },
  });
  url = server.url;
  token = await signLocalToken(await readLocalSecret(localSecretFile(dataDir)), 'alice');
});

afterAll(async () => {
  await server?.stop();
  await everything?.stop();
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

function toolResults(messages: readonly Message[]): [string, string, boolean][] {
  return messages.flatMap((message) =>
    message.role === 'tool_result' ? [[message.tool_name, message.content, message.is_error] as [string, string, boolean]] : [],
  );
}

describe('the local stack with an MCP server', { timeout: 60_000 }, () => {
  it('says which MCP servers it will use, without their headers', () => {
    expect(server.output()).toContain(`  mcp       everything (${everything.url}): connected by the first turn`);
    expect(server.output()).not.toContain('s3cret');
  });

  it("calls the everything server's echo and get-sum tools through the fake model", async () => {
    const session = (await (await call('POST', '/sessions', {})).json()) as { id: string };
    fake.enqueue(
      {
        toolCalls: [
          { id: 'toolu_1', name: 'mcp__everything__echo', input: { message: 'local stack' } },
          { id: 'toolu_2', name: 'mcp__everything__get-sum', input: { a: 7, b: 35 } },
        ],
      },
      { text: 'Done: 42.' },
    );
    const response = await call('POST', `/sessions/${session.id}/messages`, { text: 'echo and add' });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const turn = JSON.parse(text) as { messages: Message[]; stop_reason: string };
    expect(turn.stop_reason).toBe('end_turn');
    expect(toolResults(turn.messages)).toEqual([
      ['mcp__everything__echo', 'Echo: local stack', false],
      ['mcp__everything__get-sum', 'The sum of 7 and 35 is 42.', false],
    ]);
    const offered = ((fake.requests.at(-2)?.body as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(['current_time', 'mcp__everything__echo', 'mcp__everything__get-sum']));
  });

  it('answers 200 with an error result when the MCP server has gone away', async () => {
    await everything.stop();
    const session = (await (await call('POST', '/sessions', {})).json()) as { id: string };
    fake.enqueue({ toolCalls: [{ id: 'toolu_3', name: 'mcp__everything__echo', input: { message: 'hello?' } }] }, { text: 'It failed.' });
    const response = await call('POST', `/sessions/${session.id}/messages`, { text: 'echo again' });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const [result] = toolResults((JSON.parse(text) as { messages: Message[] }).messages);
    expect(result).toEqual(['mcp__everything__echo', expect.stringMatching(/^MCP server "everything" /), true]);
    expect(server.output()).not.toContain('s3cret');
  });
});
