/**
 * The OpenAI Agents SDK's own loop on `DynamoSession`: a `Runner` (streaming, with a tool)
 * talking to a fake Chat Completions server over HTTP through the real `openai` client and
 * the SDK's `OpenAIChatCompletionsModel`, run twice on one session — the second run from a new
 * session object, as another process would — on DynamoDB Local.
 */
import { Agent, Runner, setTracingDisabled, tool } from '@openai/agents-core';
import { OpenAIChatCompletionsModel } from '@openai/agents-openai';
import { DynamoSession } from '@panto/aws/openai-agents';
import { FakeLLMServer } from '@panto/core/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { localAws } from './setup/aws-fixtures.js';

let server: FakeLLMServer;
beforeAll(async () => {
  setTracingDisabled(true);
  server = await FakeLLMServer.start();
});
afterAll(() => server.close());

function agent(): Agent {
  const model = new OpenAIChatCompletionsModel(new OpenAI({ apiKey: 'test', baseURL: server.openaiBaseURL, maxRetries: 0 }), 'gpt-test');
  const add = tool({
    name: 'add',
    description: 'Adds two numbers',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => String(a + b),
  });
  return new Agent({ name: 'assistant', instructions: 'Answer briefly.', model, tools: [add] });
}

async function runTurn(session: DynamoSession, input: string): Promise<string | undefined> {
  const result = await new Runner().run(agent(), input, { session, stream: true });
  await result.completed;
  return result.finalOutput as string | undefined;
}

/** The roles and texts of the messages a Chat Completions request sent. */
function sentMessages(index: number): Array<{ role: string; content?: unknown }> {
  const body = server.requests[index]?.body as { messages?: Array<{ role: string; content?: unknown }> } | undefined;
  return body?.messages ?? [];
}

describe('an OpenAI Agents Runner on DynamoSession', () => {
  it('persists a run with a tool call, and a second run from a new session object sends the model the whole history', async () => {
    const { dynamo, tableName, s3, bucket } = await localAws('openai-runner');
    const options = { client: dynamo, tableName, s3: { client: s3, bucket }, sessionId: 'chat-runner' };
    server.enqueue({ toolCalls: [{ id: 'call_1', name: 'add', input: { a: 2, b: 2 } }] }, { text: 'It is 4.' });
    expect(await runTurn(new DynamoSession(options), 'What is 2+2?')).toBe('It is 4.');

    const stored = await new DynamoSession(options).getItems();
    expect(stored.map((item) => ('role' in item ? item.role : item.type))).toEqual(['user', 'function_call', 'function_call_result', 'assistant']);

    server.enqueue({ text: 'It is 12.' });
    const before = server.requests.length;
    expect(await runTurn(new DynamoSession(options), 'And times 3?')).toBe('It is 12.');
    const sent = sentMessages(before);
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent[1]?.content).toBe('What is 2+2?');
    expect(sent.at(-1)?.content).toBe('And times 3?');

    const items = await new DynamoSession(options).getItems();
    expect(items).toHaveLength(6);
    expect(items.slice(0, 4)).toEqual(stored);
    expect(JSON.stringify(items.at(-1))).toContain('It is 12.');
  });
});
