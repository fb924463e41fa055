import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { assertNever, effectiveSystemPrompt, type AssistantMessage, type Message } from '../messages.js';
import type { ProviderRequest } from './provider.js';
import type { ToolDefinition } from '../tool.js';
import { compactionText, fitToolCallId, omittedImagesText, TOOL_ERROR_PREFIX } from './wire-common.js';

/** The request settings of an {@link OpenAIChatProvider} call. */
export interface OpenAIRequestSettings {
  model: string;
  maxTokens?: number | undefined;
  /** Which body field carries `maxTokens` (older OpenAI-compatible servers know only `max_tokens`). */
  maxTokensParameter: 'max_completion_tokens' | 'max_tokens';
  temperature?: number | undefined;
}

// OpenAI rejects tool-call ids longer than 40 characters.
const OPENAI_TOOL_ID = { pattern: /^[\x21-\x7e]+$/, invalid: /[^\x21-\x7e]/g, maxLength: 40 };

/**
 * The Chat Completions body for a conversation.
 *
 * - The folded system prompt is a first `system` message.
 * - A compaction is a user message holding the framed summary.
 * - An assistant message is its text blocks joined, and its tool calls (arguments as JSON
 *   text); thinking is dropped (the wire has no place for it); an assistant message with
 *   neither text nor tool calls is skipped.
 * - Each tool result is one `tool` message; error results start with `[tool error] `, since
 *   the wire has no error flag. The wire takes no images there: each is a line of text
 *   saying what was left out.
 * - Consecutive user messages (or assistant messages) are merged, for OpenAI-compatible
 *   servers whose chat templates insist that roles alternate.
 * - Usage is requested (`stream_options.include_usage`).
 */
export function toOpenAIRequest(request: ProviderRequest, settings: OpenAIRequestSettings): ChatCompletionCreateParamsStreaming {
  return {
    model: settings.model,
    messages: toOpenAIMessages(request.messages),
    ...(request.tools.length > 0 ? { tools: request.tools.map(toOpenAITool) } : {}),
    ...(settings.maxTokens !== undefined ? { [settings.maxTokensParameter]: settings.maxTokens } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    stream: true,
    stream_options: { include_usage: true },
  };
}

export function toOpenAIMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  const wire: ChatCompletionMessageParam[] = [];
  const system = effectiveSystemPrompt(messages);
  if (system !== undefined && system !== '') wire.push({ role: 'system', content: system });
  const pushUser = (text: string): void => {
    if (text.trim() === '') return;
    const last = wire[wire.length - 1];
    if (last?.role === 'user' && typeof last.content === 'string') last.content = `${last.content}\n\n${text}`;
    else wire.push({ role: 'user', content: text });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        pushUser(message.content);
        break;
      case 'compaction':
        pushUser(compactionText(message.summary));
        break;
      case 'assistant': {
        const assistant = toAssistantMessage(message);
        if (!assistant) break;
        const last = wire[wire.length - 1];
        if (last?.role === 'assistant') mergeAssistant(last, assistant);
        else wire.push(assistant);
        break;
      }
      case 'tool_result': {
        const images = message.images ?? [];
        const text =
          images.length === 0
            ? message.content
            : [message.content, omittedImagesText(images, 'Chat Completions takes no images in tool results')].filter((part) => part !== '').join('\n');
        wire.push({
          role: 'tool',
          tool_call_id: fitToolCallId(message.tool_call_id, OPENAI_TOOL_ID),
          content: message.is_error ? `${TOOL_ERROR_PREFIX}${text}` : text,
        });
        break;
      }
      default:
        assertNever(message, 'message role');
    }
  }
  return wire;
}

function toAssistantMessage(message: AssistantMessage): ChatCompletionAssistantMessageParam | undefined {
  let text = '';
  const calls: ChatCompletionMessageFunctionToolCall[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        text += block.text;
        break;
      case 'tool_call':
        calls.push({
          id: fitToolCallId(block.id, OPENAI_TOOL_ID),
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input) },
        });
        break;
      case 'thinking':
      case 'redacted_thinking':
        break;
      default:
        assertNever(block, 'assistant block');
    }
  }
  const hasText = text.trim() !== '';
  if (!hasText && calls.length === 0) return undefined;
  return { role: 'assistant', content: hasText ? text : null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

function mergeAssistant(into: ChatCompletionAssistantMessageParam, next: ChatCompletionAssistantMessageParam): void {
  const texts = [into.content, next.content].filter((text): text is string => typeof text === 'string');
  into.content = texts.length > 0 ? texts.join('\n\n') : null;
  const calls = [...(into.tool_calls ?? []), ...(next.tool_calls ?? [])];
  if (calls.length > 0) into.tool_calls = calls;
}

function toOpenAITool(tool: ToolDefinition): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
  };
}
