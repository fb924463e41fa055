/**
 * Prompts and answers as the GenAI conventions record them (only with PANTO_TRACE_CONTENT=1):
 * `gen_ai.system_instructions`, `gen_ai.input.messages` and `gen_ai.output.messages` in the
 * conventions' JSON shapes (role + parts), as JSON strings. A call's input is the whole
 * conversation it was sent, which grows with the session: it is cut to the newest messages
 * that fit {@link MAX_CONTENT_CHARS} (the oldest go first, the JSON stays whole), and the span
 * says it was cut. Images are named, never copied.
 */
import type { AssistantMessage, Message, ToolResultMessage } from '@panto/core';
import { GEN_AI } from './gen-ai.js';

/** The most characters of content one attribute carries. */
export const MAX_CONTENT_CHARS = 64 * 1024;

type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; result: string }
  | { type: 'blob'; modality: 'image'; mime_type: string };

interface ChatMessage {
  role: 'user' | 'assistant' | 'tool';
  parts: Part[];
  finish_reason?: string;
}

/** The content attributes of a provider call's input: its system prompt and its messages. */
export function inputContent(messages: readonly Message[]): Record<string, string | boolean> {
  const system = messages.filter((message) => message.role === 'system').map((message) => ({ type: 'text', content: message.content }));
  const chat = messages.flatMap((message): ChatMessage[] => {
    switch (message.role) {
      case 'system':
        return [];
      case 'user':
        return [{ role: 'user', parts: [{ type: 'text', content: message.content }] }];
      case 'compaction':
        return [{ role: 'user', parts: [{ type: 'text', content: message.summary }] }];
      case 'assistant':
        return [assistantMessage(message)];
      case 'tool_result':
        return [toolMessage(message)];
      default:
        return message satisfies never;
    }
  });
  const { json, cut } = newestThatFit(chat);
  return {
    ...(system.length > 0 ? { [GEN_AI.systemInstructions]: capped(JSON.stringify(system)) } : {}),
    [GEN_AI.inputMessages]: json,
    ...(cut ? { 'panto.content.truncated': true } : {}),
  };
}

/** The content attribute of a provider call's answer. */
export function outputContent(message: AssistantMessage): Record<string, string> {
  return { [GEN_AI.outputMessages]: capped(JSON.stringify([{ ...assistantMessage(message), finish_reason: message.stop_reason }])) };
}

/** A tool call's arguments and (when it did not fail) its result. */
export function toolContent(input: unknown, result: ToolResultMessage | undefined): Record<string, string> {
  return {
    [GEN_AI.toolCallArguments]: capped(JSON.stringify(input)),
    ...(result === undefined || result.is_error ? {} : { [GEN_AI.toolCallResult]: capped(result.content) }),
  };
}

function assistantMessage(message: AssistantMessage): ChatMessage {
  const parts = message.content.flatMap((block): Part[] => {
    switch (block.type) {
      case 'text':
        return [{ type: 'text', content: block.text }];
      case 'thinking':
        return [{ type: 'reasoning', content: block.thinking }];
      case 'redacted_thinking':
        return [];
      case 'tool_call':
        return [{ type: 'tool_call', id: block.id, name: block.name, arguments: block.input }];
      default:
        return block satisfies never;
    }
  });
  return { role: 'assistant', parts };
}

function toolMessage(message: ToolResultMessage): ChatMessage {
  const images = (message.images ?? []).map((image): Part => ({ type: 'blob', modality: 'image', mime_type: image.media_type }));
  return { role: 'tool', parts: [{ type: 'tool_call_response', id: message.tool_call_id, result: message.content }, ...images] };
}

/** The newest messages whose JSON fits, as JSON; `cut` when older ones were left out. */
function newestThatFit(messages: readonly ChatMessage[]): { json: string; cut: boolean } {
  const kept: string[] = [];
  let size = 2;
  for (let i = messages.length - 1; i >= 0; i--) {
    const json = JSON.stringify(messages[i]);
    if (size + json.length + 1 > MAX_CONTENT_CHARS) break;
    kept.unshift(json);
    size += json.length + 1;
  }
  // Even the newest alone is too big: keep its text cut, in the same shape.
  if (kept.length === 0 && messages.length > 0) return { json: capped(JSON.stringify(messages.slice(-1))), cut: true };
  return { json: `[${kept.join(',')}]`, cut: kept.length < messages.length };
}

/** A value cut to {@link MAX_CONTENT_CHARS}, saying so at its end. */
function capped(text: string): string {
  return text.length <= MAX_CONTENT_CHARS ? text : `${text.slice(0, MAX_CONTENT_CHARS - 20)}…[truncated]`;
}
