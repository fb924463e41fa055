/**
 * An ACP prompt (content blocks) as panto's prompt (text). panto takes what ACP requires of
 * every agent — text and resource links — and embedded text resources (the
 * `embeddedContext` capability: an editor's `@file` mentions), which follow the prompt in
 * `<context>` blocks. Images, audio and binary resources are refused: panto does not
 * advertise them, and a prompt is never sent without part of what the user gave.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk';

/** What a prompt turned into: its text, or why it cannot be taken. */
export type PromptText = { type: 'text'; text: string } | { type: 'refused'; reason: string };

/**
 * @example
 * promptText([{ type: 'text', text: 'fix' }, { type: 'resource_link', name: 'a.ts', uri: 'file:///w/a.ts' }]);
 * // { type: 'text', text: 'fix [a.ts](file:///w/a.ts)' }
 */
export function promptText(blocks: readonly ContentBlock[]): PromptText {
  const parts: string[] = [];
  const context: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'resource_link':
        parts.push(`[${block.title ?? block.name}](${block.uri})`);
        break;
      case 'resource': {
        const resource = block.resource;
        if (!('text' in resource)) return { type: 'refused', reason: `panto takes text resources only; ${resource.uri} is binary` };
        context.push(`<context ref="${escapeAttribute(resource.uri)}">\n${resource.text}\n</context>`);
        break;
      }
      case 'image':
      case 'audio':
        return { type: 'refused', reason: `panto takes text prompts; it does not accept ${block.type} content (its prompt capabilities say so)` };
      default: {
        const unexpected: never = block;
        return { type: 'refused', reason: `unknown content block type ${JSON.stringify((unexpected as { type?: unknown }).type)}` };
      }
    }
  }
  const text = [parts.join(''), ...context].filter((part) => part !== '').join('\n\n');
  if (text.trim() === '') return { type: 'refused', reason: 'the prompt is empty' };
  return { type: 'text', text };
}

function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}
