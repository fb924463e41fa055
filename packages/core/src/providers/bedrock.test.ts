import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeProviderConformance } from '../testing/conformance/index.js';
import { encodeEventStream, FakeBedrockServer, usage, type BedrockStreamEvent } from '../testing/index.js';
import { BedrockConverseProvider, type BedrockConverseOptions } from './bedrock.js';
import { createProvider } from './factory.js';
import type { Provider, ProviderEvent } from './provider.js';

/** A recorded ConverseStream response: its events as JSON (`__fixtures__/bedrock-*.json`), encoded as the wire's frames. */
function fixture(name: string): Uint8Array {
  return encodeEventStream(JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as BedrockStreamEvent[]);
}

/** A Claude inference profile: tool results carry `status`, and cache points go on the system prompt, the tools and the newest message. */
const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const COMPACTED = '[Summary of the earlier conversation, which was compacted to save context. Continue from it.]\n\nWe fixed the parser.';
const cachePoint = { cachePoint: { type: 'default' } } as const;
const clock = {
  toolSpec: {
    name: 'clock',
    inputSchema: { json: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
    description: 'The current time',
  },
};
/** How a tool the conversation called, but that is not offered now, is declared. */
const withdrawn = (name: string) => ({
  toolSpec: { name, description: 'Not available any more: do not call it.', inputSchema: { json: { type: 'object' } } },
});
const text = (value: string): { text: string } => ({ text: value });
const toolUse = (toolUseId: string, name: string, input: unknown) => ({ toolUse: { toolUseId, name, input } });
const toolResult = (toolUseId: string, content: string, status?: 'error') => ({
  toolResult: { toolUseId, content: [text(content)], ...(status ? { status } : {}) },
});

/** A prelude whose checksum is wrong: not an event-stream message. */
function corruptPrelude(): Uint8Array {
  const bytes = encodeEventStream([{ event: 'messageStart', payload: { role: 'assistant' } }]);
  bytes[9] = (bytes[9] ?? 0) ^ 0xff;
  return bytes;
}

/** The body after resuming the conformance suite's two-turn clock session (key order as the SDK writes it). */
const resumed = {
  messages: [
    { role: 'user', content: [text('What time is it in UTC?')] },
    {
      role: 'assistant',
      content: [
        { reasoningContent: { reasoningText: { text: 'I need the clock.', signature: 'sig-1==' } } },
        text('Let me check the clock.'),
        toolUse('call_Clock01', 'clock', { zone: 'UTC' }),
      ],
    },
    { role: 'user', content: [toolResult('call_Clock01', '12:00 in UTC')] },
    { role: 'assistant', content: [text('It is 12:00 in UTC.')] },
    { role: 'user', content: [text('Thanks!')] },
    { role: 'assistant', content: [text('You are welcome.')] },
    { role: 'user', content: [text('One more: Tokyo?'), cachePoint] },
  ],
  system: [text('You are a clock.'), cachePoint],
  toolConfig: { tools: [clock, cachePoint] },
};

describeProviderConformance('BedrockConverseProvider', {
  name: 'bedrock',
  model: MODEL,
  server: FakeBedrockServer,
  create: (server, options = {}) =>
    new BedrockConverseProvider({ model: MODEL, region: server.region, endpoint: server.url, credentials: server.credentials, ...options }),
  wire: {
    path: `/model/${encodeURIComponent(MODEL)}/converse-stream`,
    streaming: {},
    streamContentType: 'application/vnd.amazon.eventstream',
    // The AWS SDK takes the hint as a floor under its own jittered backoff (up to 1 s for
    // throttling), but waits at most 5 s longer than that backoff.
    retryAfter: { headers: (ms) => ({ 'x-amz-retry-after': String(ms) }), delay: (ms) => [Math.min(ms, 5000), Math.max(ms, 1000) + 5000] },
    rawStopReasons: { endTurn: 'end_turn', toolUse: 'tool_use' },
    stopReasons: [
      ['end_turn', 'end_turn'],
      ['tool_use', 'tool_use'],
      ['max_tokens', 'max_tokens'],
      ['stop_sequence', 'stop_sequence'],
      ['guardrail_intervened', 'refusal'],
      ['content_filtered', 'refusal'],
      ['model_context_window_exceeded', 'max_tokens'],
      ['malformed_model_output', 'end_turn'],
    ],
    toolCallsEnd: 'each',
    thinking: 'signed',
    rateLimitType: 'ThrottlingException',
    serverErrors: [500, 503],
    badRequest: {
      body: { message: 'Malformed input request: #: extraneous key [topK] is not permitted, please reformat your input and try again.' },
      type: 'ValidationException',
      message: 'Malformed input request: #: extraneous key [topK] is not permitted',
    },
    malformedStream: corruptPrelude(),
    toolCallIds: (sent) => {
      const blocks = (sent as { messages: { content: { toolUse?: { toolUseId: string }; toolResult?: { toolUseId: string } }[] }[] }).messages.flatMap(
        (message) => message.content,
      );
      return {
        calls: blocks.flatMap((block) => (block.toolUse ? [block.toolUse.toolUseId] : [])),
        results: blocks.flatMap((block) => (block.toolResult ? [block.toolResult.toolUseId] : [])),
      };
    },
    acceptsToolCallId: (id) => /^[a-zA-Z0-9_-]+$/.test(id) && id.length <= 64,
  },
  recorded: {
    text: { body: fixture('bedrock-text.json'), usage: usage(25, 15) },
    toolCall: { body: fixture('bedrock-tool-use.json'), id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', usage: usage(472, 89) },
    parallelToolCalls: {
      body: fixture('bedrock-parallel-tools.json'),
      ids: ['tooluse_Ax3LmQ7vT2ZkR9bNc4WdEf', 'tooluse_Bq7NpS2xU5YhK8cMd3VgHj'],
      usage: usage(530, 112),
    },
    // Reasoning with its signature and redacted reasoning (its bytes, base64) kept verbatim, in wire order.
    thinking: {
      body: fixture('bedrock-thinking.json'),
      deltas: ['The user wants 27 * 453.', ' I should use the calculator.'],
      content: [
        {
          type: 'thinking',
          thinking: 'The user wants 27 * 453. I should use the calculator.',
          signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds==',
        },
        {
          type: 'redacted_thinking',
          data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB0URSqHvTZhKc1L',
        },
        { type: 'text', text: "I'll work that out with the calculator." },
        { type: 'tool_call', id: 'tooluse_Cq7Vx5Yz8Ab2Cd4Ef6Gh8I', name: 'calculator', input: { expression: '27 * 453' } },
      ],
      usage: usage(96, 211),
      stopReason: 'tool_use',
    },
    // Bedrock reports the cached tokens apart from inputTokens.
    cacheUsage: { body: fixture('bedrock-cache-usage.json'), usage: usage(21, 9, 1830, 188) },
    // max_tokens cut the tool call's JSON short: the call is kept with an empty input.
    maxTokens: {
      body: fixture('bedrock-max-tokens.json'),
      content: [
        { type: 'text', text: 'Let me write that file.' },
        { type: 'tool_call', id: 'tooluse_Wr1t3F1l3AbCdEfGhIjKlM', name: 'write_file', input: {} },
      ],
      rawStopReason: 'max_tokens',
    },
    errorMidStream: {
      body: fixture('bedrock-error-midstream.json'),
      type: 'ModelStreamErrorException',
      message: 'The model stream failed: an internal error occurred. Retry your request.',
    },
  },
  requests: {
    basic: {
      messages: [{ role: 'user', content: [text('What time is it?'), cachePoint] }],
      system: [text('You are terse.\n\nPrefer tables.'), cachePoint],
      inferenceConfig: { maxTokens: 1024, temperature: 0.5 },
      toolConfig: { tools: [clock, cachePoint] },
    },
    // The results of one turn are ONE user message of toolResult blocks; the error one has
    // status (Claude); an empty one says so, since Converse refuses a blank text. No tools are
    // offered, yet the conversation's tool blocks need a toolConfig: the tool it called is declared.
    toolResults: {
      messages: [
        { role: 'user', content: [text('Read a, b and c')] },
        {
          role: 'assistant',
          content: [
            text('Reading.'),
            toolUse('call_a', 'read', { path: 'a', lines: [1, 2] }),
            toolUse('call_b', 'read', { path: 'b' }),
            toolUse('call_c', 'read', {}),
          ],
        },
        {
          role: 'user',
          content: [
            toolResult('call_a', 'contents of a'),
            toolResult('call_b', 'ENOENT: no such file', 'error'),
            toolResult('call_c', '(no output)'),
            cachePoint,
          ],
        },
      ],
      toolConfig: { tools: [withdrawn('read'), cachePoint] },
    },
    promptAfterToolResults: {
      messages: [
        { role: 'user', content: [text('Run it')] },
        { role: 'assistant', content: [toolUse('call_bash', 'bash', { command: 'sleep 100' })] },
        {
          role: 'user',
          content: [toolResult('call_bash', 'Tool call aborted: the step was cancelled before this tool finished.', 'error'), text('Never mind.'), cachePoint],
        },
      ],
      toolConfig: { tools: [withdrawn('bash'), cachePoint] },
    },
    compaction: {
      messages: [{ role: 'user', content: [text(COMPACTED), text('What next?'), cachePoint] }],
      system: [text('sys'), cachePoint],
    },
    alternation: {
      messages: [
        { role: 'user', content: [text('First.'), text('Second.')] },
        { role: 'assistant', content: [text('Partial answ'), text('A full answer.')] },
        { role: 'user', content: [text('Third.'), cachePoint] },
      ],
    },
    // Unsigned reasoning is left out, and redacted reasoning whose data is not base64 (it cannot
    // be Bedrock's bytes); signed reasoning goes back; the dotted id is
    // fitted the same way for its call and result; empty replies are skipped.
    foreignSession: {
      messages: [
        { role: 'user', content: [text('Weather and time in Paris?')] },
        {
          role: 'assistant',
          content: [toolUse('call_DdmO9pD3xa9XTPNJ32zg2hcA', 'get_weather', { location: 'Paris' }), toolUse('functions_get_time_1_54fbf42b', 'get_time', {})],
        },
        { role: 'user', content: [toolResult('call_DdmO9pD3xa9XTPNJ32zg2hcA', '18°C'), toolResult('functions_get_time_1_54fbf42b', '14:00')] },
        { role: 'assistant', content: [text('It is 18°C at 14:00.')] },
        { role: 'user', content: [text('27 * 453?')] },
        {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Use the calculator.', signature: 'EqQBCgIYAhIM1gbcDa9G==' } } },
            toolUse('toolu_01A09q90qw90lq917835lq9', 'calculator', { expression: '27 * 453' }),
            toolUse('toolu_01VeryLongIdentifierFromSomeGatewayThatExceedsForty', 'calculator', { expression: '1 + 1' }),
          ],
        },
        {
          role: 'user',
          content: [toolResult('toolu_01A09q90qw90lq917835lq9', '12231'), toolResult('toolu_01VeryLongIdentifierFromSomeGatewayThatExceedsForty', '2')],
        },
        { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'Nothing to say.', signature: 'sig==' } } }] },
        { role: 'user', content: [text('And tomorrow?'), text('Hello?'), cachePoint] },
      ],
      toolConfig: { tools: [withdrawn('get_weather'), withdrawn('get_time'), withdrawn('calculator'), cachePoint] },
    },
  },
  agent: {
    resumed,
    toolLoop: {
      messages: [
        { role: 'user', content: [text('What time is it in UTC?')] },
        resumed.messages[1],
        { role: 'user', content: [toolResult('call_Clock01', '12:00 in UTC'), cachePoint] },
      ],
      system: resumed.system,
      toolConfig: resumed.toolConfig,
    },
  },
});

/** What only Bedrock's wire has: SigV4, the SDK's credential chain and endpoint override, model access. */
describe('BedrockConverseProvider on the wire', () => {
  let server: FakeBedrockServer;
  beforeEach(async () => {
    server = await FakeBedrockServer.start({ region: 'eu-west-1' });
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await server.close();
  });
  const prompt = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };
  const end = async (provider: Provider): Promise<ProviderEvent | undefined> => {
    const events: ProviderEvent[] = [];
    for await (const event of provider.stream(prompt, { signal: new AbortController().signal })) events.push(event);
    return events.at(-1);
  };
  const provider = (options: Partial<BedrockConverseOptions> = {}): BedrockConverseProvider =>
    new BedrockConverseProvider({ model: MODEL, region: server.region, endpoint: server.url, credentials: server.credentials, ...options });

  it('is refused, as AWS refuses it, when its signature does not verify, and does not retry', async () => {
    server.enqueue({ text: 'never sent' });
    const wrongSecret = provider({ credentials: { accessKeyId: server.credentials.accessKeyId, secretAccessKey: 'not-the-secret' } });
    expect(await end(wrongSecret)).toMatchObject({ type: 'error', error: { status: 403, type: 'InvalidSignatureException', retryable: false } });
    const otherRegion = provider({ region: 'us-east-1' });
    expect(await end(otherRegion)).toMatchObject({ type: 'error', error: { status: 403, type: 'InvalidSignatureException' } });
    expect(server.requests.map((request) => request.refused)).toEqual(['InvalidSignatureException', 'InvalidSignatureException']);
    expect(server.queued).toBe(1);
  });

  it('finds the endpoint, region and credentials where the SDK looks: AWS_ENDPOINT_URL_BEDROCK_RUNTIME, AWS_REGION, the environment', async () => {
    for (const [name, value] of Object.entries(server.env)) vi.stubEnv(name, value);
    server.enqueue({ text: 'Signed and delivered.' });
    expect(await end(createProvider({ provider: 'bedrock', model: 'amazon.nova-lite-v1:0' }))).toMatchObject({
      type: 'message-end',
      message: { provider: 'bedrock', model: 'amazon.nova-lite-v1:0', content: [{ type: 'text', text: 'Signed and delivered.' }] },
    });
    expect(server.requests[0]).toMatchObject({ modelId: 'amazon.nova-lite-v1:0', refused: undefined });
    expect(server.requests[0]?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCK00001\/\d{8}\/eu-west-1\/bedrock\/aws4_request/);
  });

  it('says which model and region to enable when Bedrock denies access', async () => {
    server.enqueue({ status: 403, errorBody: { message: "You don't have access to the model with the specified model ID." } });
    const last = await end(provider());
    expect(last).toMatchObject({ type: 'error', error: { name: 'ModelAccessDeniedError', model: MODEL, region: 'eu-west-1' } });
    expect(last?.type === 'error' && last.error.message).toBe(
      `model access for ${MODEL} is not enabled in eu-west-1: enable it in the Bedrock console, or check the role's policy`,
    );
  });

  it('says how to give it credentials when the SDK finds none, without a request', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'panto-no-aws-'));
    for (const name of [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
      'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
    ]) {
      vi.stubEnv(name, undefined);
    }
    vi.stubEnv('AWS_CONFIG_FILE', join(dir, 'config'));
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join(dir, 'credentials'));
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    try {
      const last = await end(provider({ credentials: undefined }));
      expect(last).toMatchObject({ type: 'error', error: { name: 'ProviderNotConfiguredError', provider: 'bedrock' } });
      expect(last?.type === 'error' && last.error.message).toMatch(/no AWS credentials/);
      expect(server.requests).toHaveLength(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
