/**
 * The built `panto` CLI on Amazon Bedrock, against a FakeBedrockServer on loopback: AWS
 * credentials from the environment (no key of panto's own), the region from `--region`,
 * the endpoint from AWS_ENDPOINT_URL_BEDROCK_RUNTIME; the cost of a Bedrock model, a tool
 * turn, `/model` switching to a Bedrock model, and model access that was never enabled.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeSession } from '@panto/core/store-kit';
import { FakeBedrockServer } from '@panto/core/testing';
import { sessionDirFor } from '@panto/cli';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, jsonlFiles, runPanto, sandbox, type Sandbox } from './cli-harness.js';

let server: FakeBedrockServer;
let box: Sandbox;

beforeAll(async () => {
  assertBuilt();
  server = await FakeBedrockServer.start({ region: 'eu-west-1' });
});
afterAll(async () => server.close());
beforeEach(async () => {
  box = await sandbox();
  server.requests.length = 0;
});
afterEach(async () => {
  expect(server.queued, 'every queued reply was used').toBe(0);
  await box.cleanup();
});

/** The sandbox's environment with AWS credentials and the endpoint override — but no region: `--region` gives it. */
function awsEnv(): Record<string, string> {
  const { AWS_REGION: _region, ...env } = server.env;
  return { ...box.env, ...env, AWS_EC2_METADATA_DISABLED: 'true' };
}

describe('panto --provider bedrock', { timeout: 60_000 }, () => {
  it("answers with the default Bedrock model, signed for --region's region, and shows the turn's cost", async () => {
    server.enqueue({ text: 'Hello from Bedrock.', usage: { input: 1000, output: 100 } });
    const result = await runPanto(['--provider', 'bedrock', '--region', 'eu-west-1', '-p', 'say hello'], { cwd: box.cwd, env: awsEnv() });
    expect(result.stderr).not.toContain('    at ');
    expect(result.stderr).not.toContain('upgrade to node');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hello from Bedrock.\n');
    // Claude Sonnet 4.6 through its global profile: $3 in and $15 out per million tokens.
    expect(result.stderr).toContain('tokens: 1,000 in · 100 out · $0.0045');
    const request = server.requests[0]!;
    expect(request).toMatchObject({ modelId: 'global.anthropic.claude-sonnet-4-6', refused: undefined });
    expect(request.headers.authorization).toContain('/eu-west-1/bedrock/aws4_request');
    const tools = (request.body as { toolConfig: { tools: { toolSpec?: { name: string } }[] } }).toolConfig.tools;
    expect(tools.flatMap((tool) => (tool.toolSpec ? [tool.toolSpec.name] : []))).toEqual(['read', 'write', 'edit', 'bash']);
    const [file] = await jsonlFiles(sessionDirFor(box.cwd, { PANTO_HOME: box.home }));
    const entries = decodeSession(await readFile(file!), file!).entries;
    expect(entries.at(-1)).toMatchObject({ message: { provider: 'bedrock', model: 'global.anthropic.claude-sonnet-4-6', usage: { input_tokens: 1000 } } });
  });

  it('runs a tool and sends its result back as a toolResult', async () => {
    await writeFile(join(box.cwd, 'notes.txt'), 'the answer is 42\n');
    server.enqueue({ toolCalls: [{ id: 'tooluse_read_1', name: 'read', input: { path: 'notes.txt' } }] }, { text: 'It says 42.' });
    const result = await runPanto(['--provider', 'bedrock', '--region', 'eu-west-1', '--model', 'eu.amazon.nova-pro-v1:0', '-p', 'what do the notes say?'], {
      cwd: box.cwd,
      env: awsEnv(),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('It says 42.\n');
    const second = server.requests[1]?.body as { messages: { role: string; content: { toolResult?: { toolUseId: string; content: { text: string }[] } }[] }[] };
    const toolResult = second.messages.at(-1)?.content.find((block) => block.toolResult)?.toolResult;
    expect(toolResult?.toolUseId).toBe('tooluse_read_1');
    expect(toolResult?.content[0]?.text).toContain('the answer is 42');
    expect(server.requests.map((request) => request.modelId)).toEqual(['eu.amazon.nova-pro-v1:0', 'eu.amazon.nova-pro-v1:0']);
  });

  it('switches to a Bedrock model with /model, and keeps --region', async () => {
    server.enqueue({ text: 'Now on Bedrock.', usage: { input: 10, output: 5 } });
    const result = await runPanto(['--provider', 'offline', '--region', 'eu-west-1'], {
      cwd: box.cwd,
      env: awsEnv(),
      stdin: '/model bedrock/eu.anthropic.claude-sonnet-4-6\nhello there\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Now on Bedrock.');
    expect(server.requests[0]).toMatchObject({ modelId: 'eu.anthropic.claude-sonnet-4-6', refused: undefined });
  });

  it('says in one line which model to enable where when Bedrock denies access, and keeps the prompt', async () => {
    server.enqueue({ status: 403, errorBody: { message: "You don't have access to the model with the specified model ID." } });
    const result = await runPanto(['--provider', 'bedrock', '--region', 'eu-west-1', '--model', 'eu.anthropic.claude-sonnet-4-6', '-p', 'hi'], {
      cwd: box.cwd,
      env: awsEnv(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "model access for eu.anthropic.claude-sonnet-4-6 is not enabled in eu-west-1: enable it in the Bedrock console, or check the role's policy",
    );
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });

  it('refuses a --region that is not one before anything is sent', async () => {
    const result = await runPanto(['--provider', 'bedrock', '--region', 'Europe', '-p', 'hi'], { cwd: box.cwd, env: awsEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--region: not an AWS region (like us-east-1 or eu-west-3): "Europe"');
    expect(server.requests).toHaveLength(0);
  });
});
