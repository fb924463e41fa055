import type { ContentBlockParam, MessageCreateParamsStreaming, Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import { assertNever, effectiveSystemPrompt, type AssistantMessage, type Message, type ToolResultMessage } from '../messages.js';
import type { ProviderRequest } from './provider.js';
import type { ToolDefinition } from '../tool.js';
import { alternatingTurns, compactionText, fitToolCallId, omittedImagesText } from './wire-common.js';

/** The request settings of an {@link AnthropicMessagesProvider} call. */
export interface AnthropicRequestSettings {
  model: string;
  maxTokens: number;
  temperature?: number | undefined;
  thinking?: { budgetTokens: number } | undefined;
  /** Mark cache breakpoints (system prompt, newest message). Default true. */
  promptCaching?: boolean | undefined;
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/** One wire message; content is always a block list so that neighbours can be merged. */
interface WireMessage {
  role: 'user' | 'assistant';
  content: ContentBlockParam[];
}

const ANTHROPIC_TOOL_ID = { pattern: /^[a-zA-Z0-9_-]+$/, invalid: /[^a-zA-Z0-9_-]/g, maxLength: 64 };

/**
 * The Messages API body for a conversation.
 *
 * - System messages fold into `system` (see `effectiveSystemPrompt`).
 * - A compaction is a user message holding the framed summary.
 * - Tool results become `tool_result` blocks of a user message, with their images as image
 *   blocks (JPEG, PNG, GIF, WebP; other types are a line of text saying what was left
 *   out); the results of one turn
 *   (and anything else that lands next to them) merge into ONE user message, because the
 *   wire wants user and assistant turns to alternate.
 * - Assistant thinking and redacted thinking go back verbatim, signature included; thinking
 *   without a signature (reasoning another provider streamed) cannot be verified and is
 *   left out. Blank text blocks are left out, and an assistant message with nothing left is
 *   skipped, since the wire rejects empty content.
 * - Tool-call ids another wire wrote are kept when they fit `^[a-zA-Z0-9_-]+$`, else made to
 *   fit (see `fitToolCallId`), the same way for the call and its result.
 * - Prompt caching (unless `promptCaching: false`): a cache breakpoint on the system prompt
 *   (which caches the tools before it) and on the last block of the newest message, so
 *   each call of a tool loop reads the previous call's prefix from the cache.
 */
export function toAnthropicRequest(request: ProviderRequest, settings: AnthropicRequestSettings): MessageCreateParamsStreaming {
  const system = effectiveSystemPrompt(request.messages);
  const caching = settings.promptCaching ?? true;
  const messages = toAnthropicMessages(request.messages);
  if (caching) markNewestBlock(messages);
  const body: MessageCreateParamsStreaming = {
    model: settings.model,
    max_tokens: settings.maxTokens,
    ...(system !== undefined && system !== '' ? { system: caching ? [{ type: 'text', text: system, cache_control: EPHEMERAL }] : system } : {}),
    messages,
    ...(request.tools.length > 0 ? { tools: request.tools.map(toAnthropicTool) } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.thinking ? { thinking: { type: 'enabled', budget_tokens: settings.thinking.budgetTokens } } : {}),
    stream: true,
  };
  return body;
}

export function toAnthropicMessages(messages: readonly Message[]): WireMessage[] {
  return alternatingTurns<ContentBlockParam>(messages, (message) => {
    switch (message.role) {
      case 'user':
        return { role: 'user', content: isBlank(message.content) ? [] : [{ type: 'text', text: message.content }] };
      case 'compaction':
        return { role: 'user', content: [{ type: 'text', text: compactionText(message.summary) }] };
      case 'assistant':
        return { role: 'assistant', content: assistantBlocks(message) };
      case 'tool_result':
        return { role: 'user', content: [toolResultBlock(message)] };
      default:
        return assertNever(message, 'message role');
    }
  });
}

/** Puts a cache breakpoint on the newest message's last block, where the wire allows one. */
function markNewestBlock(messages: WireMessage[]): void {
  const block = messages[messages.length - 1]?.content.at(-1);
  if (block === undefined || block.type === 'thinking' || block.type === 'redacted_thinking') return;
  (block as { cache_control?: typeof EPHEMERAL }).cache_control = EPHEMERAL;
}

function assistantBlocks(message: AssistantMessage): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'thinking':
        if (block.signature !== '') blocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        break;
      case 'redacted_thinking':
        blocks.push({ type: 'redacted_thinking', data: block.data });
        break;
      case 'text':
        if (!isBlank(block.text)) blocks.push({ type: 'text', text: block.text });
        break;
      case 'tool_call':
        blocks.push({
          type: 'tool_use',
          id: fitToolCallId(block.id, ANTHROPIC_TOOL_ID),
          name: block.name,
          input: block.input,
        });
        break;
      default:
        assertNever(block, 'assistant block');
    }
  }
  return blocks;
}

/** The image types the Messages API takes. */
const ANTHROPIC_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function toolResultBlock(message: ToolResultMessage): ContentBlockParam {
  const images = message.images ?? [];
  const sendable = images.filter((image) => ANTHROPIC_IMAGE_TYPES.has(image.media_type));
  const unsendable = images.filter((image) => !ANTHROPIC_IMAGE_TYPES.has(image.media_type));
  const text =
    unsendable.length === 0 ? message.content : joinText(message.content, omittedImagesText(unsendable, 'the Messages API takes only JPEG, PNG, GIF and WebP'));
  const base = {
    type: 'tool_result' as const,
    tool_use_id: fitToolCallId(message.tool_call_id, ANTHROPIC_TOOL_ID),
    ...(message.is_error ? { is_error: true } : {}),
  };
  if (sendable.length === 0) {
    // An empty text is rejected by the wire; an absent content is an empty result.
    return { ...base, ...(text !== '' ? { content: text } : {}) };
  }
  return {
    ...base,
    content: [
      ...(text !== '' ? [{ type: 'text' as const, text }] : []),
      ...sendable.map((image) => ({
        type: 'image' as const,
        source: { type: 'base64' as const, media_type: image.media_type as 'image/png', data: image.data },
      })),
    ],
  };
}

function joinText(a: string, b: string): string {
  return a === '' ? b : `${a}\n${b}`;
}

function toAnthropicTool(tool: ToolDefinition): AnthropicTool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema as AnthropicTool.InputSchema,
  };
}

function isBlank(text: string): boolean {
  return text.trim() === '';
}
