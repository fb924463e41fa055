import type { Message } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { inputContent, MAX_CONTENT_CHARS, outputContent, toolContent } from './gen-ai-content.js';

const usage = { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 };

describe('GenAI content attributes', () => {
  it('records the system prompt apart from the chat, in the conventions’ role + parts shape', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.', mode: 'replace' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }], provider: 'anthropic', model: 'm', usage, stop_reason: 'end_turn' },
    ];
    const attributes = inputContent(messages);
    expect(JSON.parse(String(attributes['gen_ai.system_instructions']))).toEqual([{ type: 'text', content: 'Be brief.' }]);
    expect(JSON.parse(String(attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'hello' }] },
    ]);
    expect(attributes).not.toHaveProperty('panto.content.truncated');
  });

  it('keeps the newest messages that fit, as whole JSON, and says older ones were cut', () => {
    const long = 'x'.repeat(MAX_CONTENT_CHARS / 3);
    const messages: Message[] = [1, 2, 3, 4].map((n) => ({ role: 'user', content: `${n}${long}` }));
    const attributes = inputContent(messages);
    const kept = JSON.parse(String(attributes['gen_ai.input.messages'])) as { parts: { content: string }[] }[];
    expect(kept.map((message) => message.parts[0]?.content[0])).toEqual(['3', '4']);
    expect(String(attributes['gen_ai.input.messages']).length).toBeLessThanOrEqual(MAX_CONTENT_CHARS);
    expect(attributes['panto.content.truncated']).toBe(true);
  });

  it('names a tool result’s images without their bytes, and leaves out a failed tool’s result', () => {
    const result = {
      role: 'tool_result' as const,
      tool_call_id: 't1',
      tool_name: 'shot',
      content: 'done',
      is_error: false,
      images: [{ type: 'image' as const, media_type: 'image/png', data: 'AAAA' }],
    };
    expect(inputContent([result])['gen_ai.input.messages']).toBe(
      JSON.stringify([
        {
          role: 'tool',
          parts: [
            { type: 'tool_call_response', id: 't1', result: 'done' },
            { type: 'blob', modality: 'image', mime_type: 'image/png' },
          ],
        },
      ]),
    );
    expect(toolContent({ a: 1 }, { ...result, is_error: true })).toEqual({ 'gen_ai.tool.call.arguments': '{"a":1}' });
    expect(outputContent({ role: 'assistant', content: [], provider: 'p', model: 'm', usage, stop_reason: 'max_tokens' })).toEqual({
      'gen_ai.output.messages': '[{"role":"assistant","parts":[],"finish_reason":"max_tokens"}]',
    });
  });
});
