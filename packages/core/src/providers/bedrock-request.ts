import type {
  ContentBlock,
  ConverseStreamRequest,
  Message as WireMessage,
  SystemContentBlock,
  Tool,
  ToolResultContentBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { assertNever, effectiveSystemPrompt, type AssistantMessage, type Message, type ToolResultMessage } from '../messages.js';
import type { ToolDefinition } from '../tool.js';
import type { ProviderRequest } from './provider.js';
import { alternatingTurns, compactionText, fitToolCallId, omittedImagesText, TOOL_ERROR_PREFIX } from './wire-common.js';

/** The request settings of a {@link BedrockConverseProvider} call. */
export interface BedrockRequestSettings {
  /** A model id or an inference profile id (`us.…`, `global.…`): it goes in the path, not the body. */
  model: string;
  /** Maximum output tokens; the model's own maximum when absent. */
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  /** Claude's extended thinking with this budget. Off when absent. */
  thinking?: { budgetTokens: number } | undefined;
  /** Cache points on the system prompt, the tools and the newest message; default: where the model supports them. */
  promptCaching?: boolean | undefined;
}

/** The body of a ConverseStream request: everything but the model id, which is in the path. */
export type BedrockConverseBody = Omit<ConverseStreamRequest, 'modelId'>;

const CACHE_POINT = { cachePoint: { type: 'default' } } as const;
/** Converse's `toolUseId`: `[a-zA-Z0-9_-]+`, at most 64 characters. */
const BEDROCK_TOOL_ID = { pattern: /^[a-zA-Z0-9_-]+$/, invalid: /[^a-zA-Z0-9_-]/g, maxLength: 64 };
/** The image formats Converse takes, by media type. */
const BEDROCK_IMAGE_FORMATS: Readonly<Record<string, 'png' | 'jpeg' | 'gif' | 'webp'>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
/** What an empty tool result is sent as: Converse refuses a blank text block. */
export const EMPTY_TOOL_RESULT = '(no output)';

/** The model id under an inference profile's geography prefix (`us.amazon.nova-pro-v1:0` → `amazon.nova-pro-v1:0`). */
export function bedrockBaseModel(model: string): string {
  return model.replace(/^(us|eu|apac|global|us-gov|jp|au|ca)\./, '');
}

/** Claude on Bedrock: the only models whose tool results carry a `status` and that take extended thinking. */
export function isBedrockClaude(model: string): boolean {
  return bedrockBaseModel(model).startsWith('anthropic.claude');
}

/**
 * Whether the model takes `cachePoint` blocks (Bedrock refuses them elsewhere): Claude 3.5 Haiku,
 * 3.7 Sonnet and every Claude after (named `claude-<family>-<version>`), and Amazon Nova's text
 * models. `tools` asks about a cache point after the tool list, which Nova does not take.
 */
export function supportsPromptCaching(model: string, where: 'system' | 'messages' | 'tools' = 'system'): boolean {
  const base = bedrockBaseModel(model);
  if (/^anthropic\.claude-(3-7-sonnet|3-5-haiku|(sonnet|opus|haiku)-\d)/.test(base)) return true;
  return where !== 'tools' && /^amazon\.nova-(micro|lite|pro|premier|2-)/.test(base);
}

/**
 * The ConverseStream body for a conversation.
 *
 * - System messages fold into `system`; a compaction is a user message holding the framed summary.
 * - Assistant text (blank text left out), tool calls as `toolUse`, signed thinking as
 *   `reasoningContent` (with its signature; redacted reasoning as its bytes, when its data
 *   is base64 as Bedrock's is — another wire's opaque data cannot be). Thinking
 *   without a signature (another provider's reasoning) cannot be verified and is left out; an
 *   assistant message with nothing left is skipped.
 * - Tool results as `toolResult` blocks of one user message, their images as image blocks
 *   (PNG, JPEG, GIF, WebP; others a line of text). An error result has `status: "error"` on
 *   Claude, the only models that take the field, and the `[tool error] ` prefix on the others;
 *   an empty result is `(no output)`, since Converse refuses a blank text.
 * - Neighbours of one role merge: Converse wants user and assistant turns to alternate.
 * - Tool-call ids another wire wrote are kept when they fit `^[a-zA-Z0-9_-]{1,64}$`, else
 *   made to fit (`fitToolCallId`), the same way for the call and its result.
 * - Converse refuses tool blocks without a `toolConfig`: when no tools are offered but the
 *   conversation has tool calls, the tools it called are declared, each with an open schema
 *   and a description that says not to call it.
 * - Prompt caching (`promptCaching`, default where the model takes it): a cache point after
 *   the system prompt, after the tools (Claude), and after the newest message.
 */
export function toBedrockRequest(request: ProviderRequest, settings: BedrockRequestSettings): BedrockConverseBody {
  const caching = (where: 'system' | 'messages' | 'tools'): boolean => settings.promptCaching ?? supportsPromptCaching(settings.model, where);
  const system = effectiveSystemPrompt(request.messages);
  const messages = toBedrockMessages(request.messages, { claude: isBedrockClaude(settings.model) });
  if (caching('messages')) messages.at(-1)?.content?.push(CACHE_POINT);
  const inferenceConfig = {
    ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
  };
  const systemBlocks: SystemContentBlock[] =
    system !== undefined && system.trim() !== '' ? [{ text: system }, ...(caching('system') ? [CACHE_POINT] : [])] : [];
  const tools: Tool[] = (request.tools.length > 0 ? request.tools : calledTools(request.messages)).map(toBedrockTool);
  const toolsSent = tools.length > 0;
  if (toolsSent && caching('tools')) tools.push(CACHE_POINT);
  return {
    messages,
    ...(systemBlocks.length > 0 ? { system: systemBlocks } : {}),
    ...(Object.keys(inferenceConfig).length > 0 ? { inferenceConfig } : {}),
    ...(toolsSent ? { toolConfig: { tools } } : {}),
    ...(settings.thinking ? { additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: settings.thinking.budgetTokens } } } : {}),
  };
}

interface MappingRules {
  /** Tool results carry `status` (Claude only). */
  claude: boolean;
}

/** What a tool the conversation called, but that is not offered now, is declared as. */
export const WITHDRAWN_TOOL_DESCRIPTION = 'Not available any more: do not call it.';

/** The tools the conversation called, declared so Converse takes its tool blocks (see `toBedrockRequest`). */
function calledTools(messages: readonly Message[]): ToolDefinition[] {
  const names = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const block of message.content) if (block.type === 'tool_call') names.add(block.name);
  }
  return [...names].map((name) => ({ name, description: WITHDRAWN_TOOL_DESCRIPTION, input_schema: { type: 'object' } }));
}

export function toBedrockMessages(messages: readonly Message[], rules: MappingRules): WireMessage[] {
  return alternatingTurns<ContentBlock>(messages, (message) => {
    switch (message.role) {
      case 'user':
        return { role: 'user', content: isBlank(message.content) ? [] : [{ text: message.content }] };
      case 'compaction':
        return { role: 'user', content: [{ text: compactionText(message.summary) }] };
      case 'assistant':
        return { role: 'assistant', content: assistantBlocks(message) };
      case 'tool_result':
        return { role: 'user', content: [toolResultBlock(message, rules)] };
      default:
        return assertNever(message, 'message role');
    }
  });
}

function assistantBlocks(message: AssistantMessage): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'thinking':
        if (block.signature !== '') blocks.push({ reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } });
        break;
      case 'redacted_thinking': {
        // Bedrock's redacted reasoning is bytes (kept as base64); data that is not base64 cannot be its bytes.
        const bytes = Buffer.from(block.data, 'base64');
        if (bytes.toString('base64') === block.data) blocks.push({ reasoningContent: { redactedContent: bytes } });
        break;
      }
      case 'text':
        if (!isBlank(block.text)) blocks.push({ text: block.text });
        break;
      case 'tool_call':
        blocks.push({ toolUse: { toolUseId: fitToolCallId(block.id, BEDROCK_TOOL_ID), name: block.name, input: block.input } });
        break;
      default:
        assertNever(block, 'assistant block');
    }
  }
  return blocks;
}

function toolResultBlock(message: ToolResultMessage, rules: MappingRules): ContentBlock {
  const images = message.images ?? [];
  const sendable = images.filter((image) => BEDROCK_IMAGE_FORMATS[image.media_type] !== undefined);
  const unsendable = images.filter((image) => BEDROCK_IMAGE_FORMATS[image.media_type] === undefined);
  let text = message.is_error && !rules.claude ? `${TOOL_ERROR_PREFIX}${message.content}` : message.content;
  if (unsendable.length > 0) text = joinText(text, omittedImagesText(unsendable, 'Converse takes only PNG, JPEG, GIF and WebP'));
  const content: ToolResultContentBlock[] = [];
  if (text !== '' || sendable.length === 0) content.push({ text: text === '' ? EMPTY_TOOL_RESULT : text });
  for (const image of sendable) {
    content.push({ image: { format: BEDROCK_IMAGE_FORMATS[image.media_type], source: { bytes: Buffer.from(image.data, 'base64') } } });
  }
  return {
    toolResult: {
      toolUseId: fitToolCallId(message.tool_call_id, BEDROCK_TOOL_ID),
      content,
      ...(rules.claude && message.is_error ? { status: 'error' as const } : {}),
    },
  };
}

function toBedrockTool(tool: ToolDefinition): Tool {
  return {
    toolSpec: {
      name: tool.name,
      description: tool.description,
      inputSchema: { json: tool.input_schema as unknown as Record<string, never> },
    },
  };
}

function joinText(a: string, b: string): string {
  return a === '' ? b : `${a}\n${b}`;
}

function isBlank(text: string): boolean {
  return text.trim() === '';
}
