/**
 * The session log format, shared by every store that writes JSONL (the filesystem store,
 * S3 exports, imports): one JSON object per line, line 1 a header. See
 * docs/session-format.md. Encoding is canonical — the same entries always give the same
 * bytes, whatever key order the objects in memory had.
 */
import type { AssistantBlock, AssistantMessage, Message, ToolResultMessage, Usage } from '../messages.js';
import type { DiskMessage, SessionEntry } from './records.js';

/**
 * The format version this code writes in new headers and the newest it reads. 2 added the
 * `leaf` entry (a switch of the active branch); a version-1 log reads by the same rule, and
 * a leaf entry appended to one keeps its header (see docs/session-format.md).
 */
export const SESSION_FORMAT_VERSION = 2;

export interface SessionHeader {
  type: 'session';
  version: number;
  /** The session id (UUIDv7); also the file name of a filesystem session. */
  id: string;
  /** ISO-8601 creation time. */
  timestamp: string;
  /** The working folder the session was started in, when there was one. */
  cwd?: string;
}

export function encodeHeader(header: SessionHeader): string {
  const out: SessionHeader = {
    type: 'session',
    version: header.version,
    id: header.id,
    timestamp: header.timestamp,
  };
  if (header.cwd !== undefined) out.cwd = header.cwd;
  return `${JSON.stringify(out)}\n`;
}

/**
 * Encodes one appended batch as lines (each ending in `\n`). A batch of more than one
 * entry carries `batch_size` on its first line, so a reader can tell a batch cut short
 * by a crash from a complete one.
 */
export function encodeBatch(entries: readonly SessionEntry[]): string {
  let text = '';
  for (let i = 0; i < entries.length; i++) {
    text += encodeEntry(entries[i]!, i === 0 && entries.length > 1 ? entries.length : undefined);
    text += '\n';
  }
  return text;
}

/**
 * An entry as its line says it, without the framing a log adds to a batch's first line
 * (`batch_size`): what an API or an extension shows of an entry.
 */
export function withoutFraming(entry: SessionEntry): SessionEntry {
  const { batch_size: _batchSize, ...rest } = entry as SessionEntry & { batch_size?: number };
  return rest as SessionEntry;
}

/** Encodes each entry of a batch as its own line (no trailing newline), as {@link encodeBatch} does. */
export function encodeBatchLines(entries: readonly SessionEntry[]): string[] {
  return entries.map((entry, i) => encodeEntry(entry, i === 0 && entries.length > 1 ? entries.length : undefined));
}

function encodeEntry(entry: SessionEntry, batchSize: number | undefined): string {
  const head = {
    type: entry.type,
    id: entry.id,
    parent_id: entry.parent_id,
    timestamp: entry.timestamp,
    ...(batchSize === undefined ? {} : { batch_size: batchSize }),
  };
  switch (entry.type) {
    case 'leaf':
      return JSON.stringify(head);
    case 'message':
      return JSON.stringify({ ...head, message: canonicalMessage(entry.message) });
    case 'compaction':
      return JSON.stringify({
        ...head,
        summary: entry.summary,
        provider: entry.provider,
        model: entry.model,
        usage: canonicalUsage(entry.usage),
        prior_usage: canonicalUsage(entry.prior_usage),
      });
  }
}

/** The usage counts as the format writes them, in their order. */
export function canonicalUsage(usage: Usage): Usage {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_tokens: usage.cache_read_tokens,
    cache_write_tokens: usage.cache_write_tokens,
  };
}

function canonicalBlock(block: AssistantBlock): AssistantBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_call':
      return { type: 'tool_call', id: block.id, name: block.name, input: block.input };
  }
}

/** A message as the format writes it: its fields in their order, nothing it does not define. */
export function canonicalMessage(message: DiskMessageBody): DiskMessageBody {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content, mode: message.mode };
    case 'user': {
      const out: Message = { role: 'user', content: message.content };
      if (message.provider !== undefined) out.provider = message.provider;
      if (message.model !== undefined) out.model = message.model;
      return out;
    }
    case 'assistant': {
      const out: AssistantMessage = {
        role: 'assistant',
        content: message.content.map(canonicalBlock),
        provider: message.provider,
        model: message.model,
        usage: canonicalUsage(message.usage),
        stop_reason: message.stop_reason,
      };
      if (message.raw_stop_reason !== undefined) out.raw_stop_reason = message.raw_stop_reason;
      if (message.error_message !== undefined) out.error_message = message.error_message;
      return out;
    }
    case 'tool_result': {
      const out: ToolResultMessage = {
        role: 'tool_result',
        tool_call_id: message.tool_call_id,
        tool_name: message.tool_name,
        content: message.content,
        is_error: message.is_error,
      };
      if (message.images !== undefined && message.images.length > 0) {
        out.images = message.images.map((image) => ({ type: 'image', media_type: image.media_type, data: image.data }));
      }
      return out;
    }
  }
}

export type DiskMessageBody = Extract<DiskMessage, { type: 'message' }>['message'];
