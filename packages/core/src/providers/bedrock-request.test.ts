import { describe, expect, it } from 'vitest';
import type { Message } from '../messages.js';
import { usage } from '../testing/fixtures.js';
import type { ToolDefinition } from '../tool.js';
import type { ProviderRequest } from './provider.js';
import { supportsPromptCaching, toBedrockRequest } from './bedrock-request.js';

const clock: ToolDefinition = { name: 'clock', description: 'The current time', input_schema: { type: 'object' } };
const cachePoint = { cachePoint: { type: 'default' } };
const PNG = Buffer.from('not really a png').toString('base64');

const turn: Message[] = [
  { role: 'system', content: 'Be brief.', mode: 'replace' },
  { role: 'user', content: 'Time?' },
  {
    role: 'assistant',
    content: [{ type: 'tool_call', id: 'call_1', name: 'clock', input: {} }],
    provider: 'bedrock',
    model: 'm',
    usage: usage(1, 1),
    stop_reason: 'tool_use',
  },
  { role: 'tool_result', tool_call_id: 'call_1', tool_name: 'clock', content: 'no clock here', is_error: true },
];
const request: ProviderRequest = { messages: turn, tools: [clock] };

describe('toBedrockRequest', () => {
  it('puts cache points after the system prompt, the tools and the newest message for Claude', () => {
    const body = toBedrockRequest(request, { model: 'global.anthropic.claude-sonnet-4-6' });
    expect(body.system).toEqual([{ text: 'Be brief.' }, cachePoint]);
    expect(body.toolConfig?.tools?.at(-1)).toEqual(cachePoint);
    expect(body.messages?.at(-1)?.content?.at(-1)).toEqual(cachePoint);
  });

  it('caches the system prompt and messages of Amazon Nova but not its tools, which Nova does not take', () => {
    const body = toBedrockRequest(request, { model: 'us.amazon.nova-pro-v1:0' });
    expect(body.system).toEqual([{ text: 'Be brief.' }, cachePoint]);
    expect(body.toolConfig?.tools).toEqual([{ toolSpec: { name: 'clock', description: 'The current time', inputSchema: { json: { type: 'object' } } } }]);
    expect(body.messages?.at(-1)?.content?.at(-1)).toEqual(cachePoint);
  });

  it('sends no cache point to a model that refuses them, nor when promptCaching is off', () => {
    for (const settings of [{ model: 'us.meta.llama3-3-70b-instruct-v1:0' }, { model: 'global.anthropic.claude-sonnet-4-6', promptCaching: false }]) {
      expect(JSON.stringify(toBedrockRequest(request, settings))).not.toContain('cachePoint');
    }
    expect(supportsPromptCaching('anthropic.claude-3-haiku-20240307-v1:0')).toBe(false);
    expect(supportsPromptCaching('apac.anthropic.claude-sonnet-4-20250514-v1:0')).toBe(true);
  });

  it('marks an error result with status only for Claude, and with the [tool error] prefix for the other models', () => {
    const claude = toBedrockRequest(request, { model: 'us.anthropic.claude-haiku-4-5-20251001-v1:0', promptCaching: false });
    expect(claude.messages?.at(-1)?.content).toEqual([{ toolResult: { toolUseId: 'call_1', content: [{ text: 'no clock here' }], status: 'error' } }]);
    const nova = toBedrockRequest(request, { model: 'amazon.nova-lite-v1:0', promptCaching: false });
    expect(nova.messages?.at(-1)?.content).toEqual([{ toolResult: { toolUseId: 'call_1', content: [{ text: '[tool error] no clock here' }] } }]);
  });

  it("sends a tool result's images as image blocks, and says which it could not send", () => {
    const messages: Message[] = [
      ...turn.slice(0, 3),
      {
        role: 'tool_result',
        tool_call_id: 'call_1',
        tool_name: 'clock',
        content: 'two pictures',
        is_error: false,
        images: [
          { type: 'image', media_type: 'image/png', data: PNG },
          { type: 'image', media_type: 'image/bmp', data: PNG },
        ],
      },
    ];
    const body = toBedrockRequest({ messages, tools: [clock] }, { model: 'us.anthropic.claude-sonnet-4-6', promptCaching: false });
    const result = body.messages?.at(-1)?.content?.[0]?.toolResult;
    expect(result?.content?.[0]?.text).toMatch(/^two pictures\n\[image\/bmp image of 0 KB not shown: Converse takes only PNG, JPEG, GIF and WebP\]$/);
    expect(result?.content?.[1]).toEqual({ image: { format: 'png', source: { bytes: Buffer.from(PNG, 'base64') } } });
  });

  it("asks for Claude's extended thinking through additionalModelRequestFields, and leaves max tokens to the model by default", () => {
    const plain = toBedrockRequest(request, { model: 'global.anthropic.claude-sonnet-4-6' });
    expect(plain.inferenceConfig).toBeUndefined();
    expect(plain.additionalModelRequestFields).toBeUndefined();
    const thinking = toBedrockRequest(request, { model: 'global.anthropic.claude-sonnet-4-6', maxTokens: 12_000, thinking: { budgetTokens: 4000 } });
    expect(thinking.inferenceConfig).toEqual({ maxTokens: 12_000 });
    expect(thinking.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 4000 } });
  });
});
