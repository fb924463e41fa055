/**
 * The local stack (`scripts/start.ts`, as `npm start` runs it) with `PANTO_PROVIDER=bedrock`
 * and the SDK's endpoint override pointing at a FakeBedrockServer: a turn, a tool turn, a
 * streamed turn, a compaction, a throttled call retried, throttling that outlasts the retries, and model
 * access that was never enabled — each as the HTTP API answers it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@panto/core';
import { FakeBedrockServer } from '@panto/core/testing';
import { localSecretFile, readLocalSecret, signLocalToken } from '@panto/functions/local';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { json, parseSSE } from './api-harness.js';
import { startLocalStack, type LocalStack } from './local-stack-harness.js';
import { localAws } from './setup/aws-fixtures.js';

const MODEL = 'eu.anthropic.claude-sonnet-4-6';

let bedrock: FakeBedrockServer;
let dataDir: string;
let server: LocalStack;
let token: string;

beforeAll(async () => {
  bedrock = await FakeBedrockServer.start({ region: 'eu-west-1' });
  dataDir = await mkdtemp(join(tmpdir(), 'panto-e2e-bedrock-'));
  server = await startLocalStack({
    aws: await localAws('e2e-bedrock'),
    dataDir,
    model: MODEL,
    env: { PANTO_PROVIDER: 'bedrock', PANTO_MODEL: MODEL, ...bedrock.env, AWS_EC2_METADATA_DISABLED: 'true' },
  });
  token = await signLocalToken(await readLocalSecret(localSecretFile(dataDir)), 'alice');
}, 60_000);

afterAll(async () => {
  if (server) await server.stop('SIGINT');
  await bedrock?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

afterEach(() => {
  expect(bedrock.queued, 'every queued reply was used').toBe(0);
  bedrock.requests.length = 0;
});

function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function newSession(): Promise<string> {
  return (await json<{ id: string }>(await call('POST', '/sessions', {}), 201)).id;
}

type Turn = { messages: Message[]; usage: { input_tokens: number }; stop_reason: string; error?: { code: string; message: string; field?: string } };
const roles = (messages: readonly Message[]): string[] => messages.map((message) => message.role);

describe('the local stack on Amazon Bedrock', { timeout: 60_000 }, () => {
  it('says it uses Bedrock, and offers the Bedrock catalog in GET /models', async () => {
    expect(server.output()).toContain(`provider  bedrock (${MODEL}), because PANTO_PROVIDER`);
    const models = await json<{ default: { provider: string; model: string }; providers: { name: string; models: { id: string }[] }[] }>(
      await call('GET', '/models'),
      200,
    );
    expect(models.default).toEqual({ provider: 'bedrock', model: MODEL });
    const offered = models.providers.find((provider) => provider.name === 'bedrock')?.models.map((model) => model.id);
    expect(offered).toEqual(expect.arrayContaining(['global.anthropic.claude-sonnet-4-6', 'us.amazon.nova-pro-v1:0', MODEL]));
  });

  it('runs a turn over the signed, HTTP/2 Converse wire', async () => {
    const id = await newSession();
    bedrock.enqueue({ text: 'Hello from Bedrock.', usage: { input: 12, output: 4 } });
    const turn = await json<Turn>(await call('POST', `/sessions/${id}/messages`, { text: 'hi' }), 200);
    expect(roles(turn.messages)).toEqual(['user', 'assistant']);
    expect(turn.messages[1]).toMatchObject({ provider: 'bedrock', model: MODEL, content: [{ type: 'text', text: 'Hello from Bedrock.' }] });
    expect(turn).toMatchObject({ stop_reason: 'end_turn', usage: { input_tokens: 12 } });
    expect(bedrock.requests.map((request) => [request.modelId, request.refused])).toEqual([[MODEL, undefined]]);
  });

  it("runs a tool turn: the service's tool, its result sent back as a toolResult", async () => {
    const id = await newSession();
    bedrock.enqueue({ toolCalls: [{ id: 'tooluse_time_1', name: 'current_time', input: {} }] }, { text: 'It is now.' });
    const turn = await json<Turn>(await call('POST', `/sessions/${id}/messages`, { text: 'what time is it?' }), 200);
    expect(roles(turn.messages)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
    const second = JSON.stringify(bedrock.requests[1]?.body);
    expect(second).toContain('"toolResult":{"toolUseId":"tooluse_time_1"');
  });

  it('streams a turn as server-sent events', async () => {
    const id = await newSession();
    bedrock.enqueue({ text: 'Streamed from Bedrock.' });
    const response = await call('POST', `/sessions/${id}/messages/stream`, { text: 'stream please' });
    expect(response.status).toBe(200);
    const events = parseSSE(await response.text());
    const deltas = events.filter((event) => event.event === 'text-delta').map((event) => (event.data as { delta: string }).delta);
    expect(deltas.join('')).toBe('Streamed from Bedrock.');
    expect(events.at(-1)).toMatchObject({ event: 'end', data: { stop_reason: 'end_turn', incomplete: false } });
  });

  it('compacts a session with the summary Bedrock writes, and the next turn starts from it', async () => {
    const id = await newSession();
    bedrock.enqueue({ text: 'We talked about parsers.' });
    await json<Turn>(await call('POST', `/sessions/${id}/messages`, { text: 'let us talk about parsers' }), 200);
    bedrock.enqueue({ text: 'Summary: parsers were discussed.', usage: { input: 40, output: 8 } });
    const compacted = await json<{ summary: string; usage: { input_tokens: number } }>(await call('POST', `/sessions/${id}/compact`, {}), 200);
    expect(compacted).toMatchObject({ summary: 'Summary: parsers were discussed.', usage: { input_tokens: 40 } });
    bedrock.enqueue({ text: 'Yes, parsers.' });
    await json<Turn>(await call('POST', `/sessions/${id}/messages`, { text: 'what did we discuss?' }), 200);
    const after = JSON.stringify(bedrock.requests[2]?.body);
    expect(after).toContain('Summary: parsers were discussed.');
    expect(after).not.toContain('let us talk about parsers');
  });

  it('retries a throttled call with backoff, then answers', async () => {
    const id = await newSession();
    bedrock.enqueue({ status: 429 }, { text: 'Second time lucky.' });
    const turn = await json<Turn>(await call('POST', `/sessions/${id}/messages`, { text: 'hi' }), 200);
    expect(turn.messages[1]).toMatchObject({ content: [{ type: 'text', text: 'Second time lucky.' }] });
    expect(bedrock.requests).toHaveLength(2);
  });

  it('answers 503 provider_unavailable with Retry-After when Bedrock throttles past the retries, the prompt kept', async () => {
    const id = await newSession();
    bedrock.enqueue({ status: 429 }, { status: 429 }, { status: 429 });
    const response = await call('POST', `/sessions/${id}/messages`, { text: 'busy?' });
    expect(response.headers.get('retry-after')).toBe('5');
    const failed = await json<Turn>(response, 503);
    expect(failed.error?.code).toBe('provider_unavailable');
    expect(failed.error?.message).toContain('ThrottlingException');
    expect(bedrock.requests).toHaveLength(3);
    const contents = await json<{ dangling_user: string | null }>(await call('GET', `/sessions/${id}`), 200);
    expect(contents.dangling_user).toBe('busy?');
  });

  it('answers 422 model_access_denied saying which model to enable in which region', async () => {
    const id = await newSession();
    bedrock.enqueue({ status: 403, errorBody: { message: "You don't have access to the model with the specified model ID." } });
    const failed = await json<Turn>(await call('POST', `/sessions/${id}/messages`, { text: 'hi' }), 422);
    expect(failed.error).toEqual({
      code: 'model_access_denied',
      message: `model access for ${MODEL} is not enabled in eu-west-1: enable it in the Bedrock console, or check the role's policy`,
      field: 'model',
    });
    expect(roles(failed.messages)).toEqual(['user']);
  });
});
