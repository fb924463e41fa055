import { exceedsJSONDepth, tooDeepReason } from '../json-limits.js';
import type { ImageBlock } from '../messages.js';
import type { ToolOutput } from '../tool.js';

/** Text results above this many bytes are cut (the beginning is kept), so one call cannot flood the context. */
export const MAX_RESULT_BYTES = 100 * 1024;

/**
 * An MCP `tools/call` result as a tool output: text blocks joined by newlines, images kept
 * as images (the providers that take them get them), everything else (audio, resources,
 * resource links) one line of text saying what it is; `structuredContent` as JSON when
 * there is no text; `isError` as `is_error`. Older servers' `{ toolResult }` is its JSON.
 * A result nested deeper than `MAX_JSON_DEPTH` is an error result saying so.
 */
export function toolOutputFromMCP(result: unknown, maxBytes: number = MAX_RESULT_BYTES): ToolOutput {
  // Refused whole, before any part of it is turned into text: JSON.stringify of it would overflow.
  if (exceedsJSONDepth(result)) return { content: `The MCP server's result was refused: ${tooDeepReason('it')}.`, is_error: true };
  const value = (typeof result === 'object' && result !== null ? result : {}) as {
    content?: unknown;
    structuredContent?: unknown;
    isError?: unknown;
    toolResult?: unknown;
  };
  const texts: string[] = [];
  const images: ImageBlock[] = [];
  const blocks = Array.isArray(value.content) ? (value.content as unknown[]) : [];
  for (const block of blocks) {
    const part = describeBlock(block, images);
    if (part !== undefined) texts.push(part);
  }
  if (texts.length === 0 && value.structuredContent !== undefined) texts.push(JSON.stringify(value.structuredContent));
  if (blocks.length === 0 && value.toolResult !== undefined)
    texts.push(typeof value.toolResult === 'string' ? value.toolResult : JSON.stringify(value.toolResult));
  const content = cutToBytes(texts.join('\n'), maxBytes);
  return {
    content,
    ...(value.isError === true ? { is_error: true } : {}),
    ...(images.length > 0 ? { images } : {}),
  };
}

/** One content block as text (or as an image, pushed to `images`). */
function describeBlock(block: unknown, images: ImageBlock[]): string | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const b = block as { [key: string]: unknown };
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? b.text : undefined;
    case 'image':
      if (typeof b.data === 'string' && typeof b.mimeType === 'string') {
        images.push({ type: 'image', media_type: b.mimeType, data: b.data });
        return undefined;
      }
      return '[an image the server sent without data or type]';
    case 'audio':
      return `[${typeof b.mimeType === 'string' ? b.mimeType : 'audio'} audio of ${kilobytes(b.data)} not shown: audio is not passed to models]`;
    case 'resource_link':
      return `[resource link: ${String(b.uri)}${typeof b.name === 'string' ? ` (${b.name})` : ''}${typeof b.description === 'string' ? ` — ${b.description}` : ''}]`;
    case 'resource': {
      const resource = (typeof b.resource === 'object' && b.resource !== null ? b.resource : {}) as {
        [key: string]: unknown;
      };
      if (typeof resource.text === 'string') return `[resource ${String(resource.uri)}]\n${resource.text}`;
      return `[resource ${String(resource.uri)}: ${typeof resource.mimeType === 'string' ? resource.mimeType : 'binary'} of ${kilobytes(resource.blob)} not shown]`;
    }
    default:
      return `[a ${JSON.stringify(b.type)} block panto does not know]`;
  }
}

function kilobytes(base64: unknown): string {
  return typeof base64 === 'string' ? `${Math.round((base64.length * 3) / 4 / 1024)} KB` : 'unknown size';
}

function cutToBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  let kept = Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  // A cut inside a multi-byte character decodes to U+FFFD at the end; drop it.
  if (kept.endsWith('\uFFFD')) kept = kept.slice(0, -1);
  return `${kept}\n[… cut: the result was ${bytes} bytes; the first ${maxBytes} are shown]`;
}
