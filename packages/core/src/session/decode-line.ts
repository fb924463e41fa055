/**
 * Reading one line of the session log back (the framing of lines into batches is
 * decoder.ts; writing them is format.ts): parse, check it is an entry, and apply the rules
 * for lines nested too deep and for times, by where the log comes from (see {@link LineRules}).
 */
import { SessionCorruptError } from '../errors.js';
import { ID_RULE, isValidId } from '../ids.js';
import { exceedsJSONDepth, MAX_ENTRY_DEPTH, MAX_JSON_DEPTH, mayExceedJSONDepth, tooDeepReason } from '../json-limits.js';
import { STOP_REASONS, type Usage } from '../messages.js';
import { canonicalDecision } from '../approvals.js';
import { canonicalMessage, canonicalUsage, SESSION_FORMAT_VERSION, type SessionHeader } from './format.js';
import type { SessionEntry } from './records.js';

/**
 * How a reader judges lines. `stored` — a log panto wrote, which must stay readable: a line
 * nested deeper than the limit ({@link MAX_ENTRY_DEPTH}; a tool call's input
 * {@link MAX_JSON_DEPTH}) is loaded with its too-deep tool-call inputs as `{}` and without
 * fields the format does not define, marked `unreadable`. `incoming` — a log entering panto
 * (an import), which must not store what a stored log could not be read back from: such a
 * line is refused (`SessionCorruptError` naming it), and so is a timestamp that is not ISO 8601.
 */
export type LineRules = 'stored' | 'incoming';

/** An ISO-8601 time as `Date.toISOString` writes it, or with another fraction or offset. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether `text` is an ISO-8601 date and time that names a real instant. */
export function isISOTime(text: string): boolean {
  return ISO_TIME.test(text) && !Number.isNaN(Date.parse(text));
}

/**
 * Decodes one line of a session log: {@link parseLine}, {@link decodeEntry}, and the rules
 * of {@link LineRules}. The one reader of an entry line, for every store and the import.
 */
export function decodeLine(text: string, source: string, lineNumber: number, rules: LineRules = 'stored'): SessionEntry {
  const value = parseLine(text, source, lineNumber);
  const entry = decodeEntry(value, source, lineNumber);
  if (rules === 'incoming' && !isISOTime(entry.timestamp)) {
    throw new SessionCorruptError(source, lineNumber, `timestamp ${JSON.stringify(entry.timestamp)} is not an ISO-8601 time`);
  }
  // A tool call's input sits four levels down (line, message, content, block): a line within
  // MAX_ENTRY_DEPTH holds no input deeper than MAX_JSON_DEPTH.
  if (!mayExceedJSONDepth(text, MAX_ENTRY_DEPTH) || !exceedsJSONDepth(value, MAX_ENTRY_DEPTH)) return entry;
  const reason = hasDeepInput(entry) ? tooDeepReason('a tool call input') : tooDeepReason('the line', MAX_ENTRY_DEPTH);
  if (rules === 'incoming') throw new SessionCorruptError(source, lineNumber, reason);
  return markedEntry(entry, reason);
}

function hasDeepInput(entry: SessionEntry): boolean {
  return (
    entry.type === 'message' &&
    entry.message.role === 'assistant' &&
    entry.message.content.some((block) => block.type === 'tool_call' && exceedsJSONDepth(block.input, MAX_JSON_DEPTH))
  );
}

/** The entry as the format defines it, with too-deep tool inputs as `{}`, marked `unreadable`. */
function markedEntry(entry: SessionEntry, reason: string): SessionEntry {
  const framing = (entry as { batch_size?: number }).batch_size;
  const head = {
    id: entry.id,
    timestamp: entry.timestamp,
    ...(framing === undefined ? {} : { batch_size: framing }),
    unreadable: reason,
  };
  switch (entry.type) {
    case 'leaf':
      return { type: 'leaf', parent_id: entry.parent_id, ...head };
    case 'compaction': {
      const { summary, provider, model } = entry;
      return {
        type: 'compaction',
        parent_id: entry.parent_id,
        ...head,
        summary,
        provider,
        model,
        usage: canonicalUsage(entry.usage),
        prior_usage: canonicalUsage(entry.prior_usage),
      };
    }
    case 'approval':
      return { type: 'approval', parent_id: entry.parent_id, ...head, decisions: entry.decisions.map(canonicalDecision) };
    case 'message': {
      const message = canonicalMessage(entry.message);
      if (message.role === 'assistant') {
        message.content = message.content.map((block) =>
          block.type === 'tool_call' && exceedsJSONDepth(block.input, MAX_JSON_DEPTH) ? { ...block, input: {} } : block,
        );
      }
      return { type: 'message', parent_id: entry.parent_id, ...head, message };
    }
  }
}

/** Parses one line as a JSON object, or throws `SessionCorruptError` naming the line. */
export function parseLine(line: string, source: string, lineNumber: number): object {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new SessionCorruptError(source, lineNumber, 'not valid JSON', { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SessionCorruptError(source, lineNumber, 'not a JSON object');
  }
  return value;
}

export function decodeHeader(value: object, source: string, rules: LineRules = 'stored'): SessionHeader {
  const header = value as Partial<SessionHeader>;
  if (header.type !== 'session') {
    throw new SessionCorruptError(source, 1, 'line 1 is not a session header');
  }
  if (typeof header.version !== 'number' || !Number.isInteger(header.version)) {
    throw new SessionCorruptError(source, 1, 'session header has no version');
  }
  if (header.version > SESSION_FORMAT_VERSION || header.version < 1) {
    throw new SessionCorruptError(source, 1, `session format version ${header.version} is not supported (this panto reads up to ${SESSION_FORMAT_VERSION})`);
  }
  if (typeof header.id !== 'string' || header.id === '') {
    throw new SessionCorruptError(source, 1, 'session header has no id');
  }
  if (!isValidId(header.id)) {
    throw new SessionCorruptError(source, 1, `session id ${JSON.stringify(header.id)} is not an id: use ${ID_RULE}`);
  }
  if (typeof header.timestamp !== 'string') {
    throw new SessionCorruptError(source, 1, 'session header has no timestamp');
  }
  if (rules === 'incoming' && !isISOTime(header.timestamp)) {
    throw new SessionCorruptError(source, 1, `session header timestamp ${JSON.stringify(header.timestamp)} is not an ISO-8601 time`);
  }
  if (header.cwd !== undefined && typeof header.cwd !== 'string') {
    throw new SessionCorruptError(source, 1, 'session header cwd must be a string');
  }
  return header as SessionHeader;
}

/**
 * Checks that a parsed line is a session entry and returns it typed. The check is
 * shallow enough to keep loading close to the cost of JSON.parse, and deep enough that
 * nothing a provider cannot send gets into a conversation.
 */
export function decodeEntry(value: unknown, source: string, lineNumber: number): SessionEntry {
  const reason = entryProblem(value);
  if (reason !== undefined) throw new SessionCorruptError(source, lineNumber, reason);
  return value as SessionEntry;
}

/** Why a parsed line is not a session entry, or undefined when it is one. */
function entryProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const entry = value as Record<string, unknown>;
  if (typeof entry.id !== 'string' || entry.id === '') return 'entry has no id';
  if (!isValidId(entry.id)) return `entry id ${JSON.stringify(entry.id)} is not an id: use ${ID_RULE}`;
  if (entry.parent_id !== null && typeof entry.parent_id !== 'string') return 'entry parent_id must be a string or null';
  if (entry.parent_id !== null && !isValidId(entry.parent_id)) return `entry parent_id ${JSON.stringify(entry.parent_id)} is not an id`;
  if (typeof entry.timestamp !== 'string') return 'entry has no timestamp';
  switch (entry.type) {
    case 'message':
      return messageProblem(entry.message);
    case 'compaction':
      if (typeof entry.summary !== 'string') return 'compaction has no summary';
      if (typeof entry.provider !== 'string' || typeof entry.model !== 'string') return 'compaction has no provider/model';
      if (!isUsage(entry.usage) || !isUsage(entry.prior_usage)) return 'compaction usage is malformed';
      return undefined;
    case 'leaf':
      return entry.parent_id === null ? 'leaf entry has no parent_id' : undefined;
    case 'approval':
      return entry.parent_id === null ? 'approval entry has no parent_id' : decisionsProblem(entry.decisions);
    case 'session':
      return 'a second session header';
    default:
      return `unknown entry type ${JSON.stringify(entry.type)}`;
  }
}

function isUsage(value: unknown): value is Usage {
  if (typeof value !== 'object' || value === null) return false;
  const usage = value as Record<string, unknown>;
  return (
    typeof usage.input_tokens === 'number' &&
    typeof usage.output_tokens === 'number' &&
    typeof usage.cache_read_tokens === 'number' &&
    typeof usage.cache_write_tokens === 'number'
  );
}

const STOP_REASON_SET: ReadonlySet<string> = new Set(STOP_REASONS);

function messageProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'message entry has no message';
  const message = value as Record<string, unknown>;
  switch (message.role) {
    case 'system':
      if (typeof message.content !== 'string') return 'system message content must be a string';
      if (message.mode !== 'replace' && message.mode !== 'append') return 'system message mode must be "replace" or "append"';
      return undefined;
    case 'user':
      if (typeof message.content !== 'string') return 'user message content must be a string';
      return undefined;
    case 'tool_result':
      if (typeof message.tool_call_id !== 'string') return 'tool result has no tool_call_id';
      if (typeof message.tool_name !== 'string') return 'tool result has no tool_name';
      if (typeof message.content !== 'string') return 'tool result content must be a string';
      if (typeof message.is_error !== 'boolean') return 'tool result is_error must be a boolean';
      if (message.images !== undefined && !(Array.isArray(message.images) && message.images.every(isImage))) {
        return 'tool result images must be an array of { type: "image", media_type, data }';
      }
      return undefined;
    case 'assistant': {
      if (!Array.isArray(message.content)) return 'assistant content must be an array';
      for (const block of message.content as unknown[]) {
        const reason = blockProblem(block);
        if (reason !== undefined) return reason;
      }
      if (typeof message.provider !== 'string' || typeof message.model !== 'string') return 'assistant message has no provider/model';
      if (!isUsage(message.usage)) return 'assistant usage is malformed';
      if (typeof message.stop_reason !== 'string' || !STOP_REASON_SET.has(message.stop_reason)) {
        return `unknown stop_reason ${JSON.stringify(message.stop_reason)}`;
      }
      return approvalRequestsProblem(message.approval_requests);
    }
    default:
      return `unknown message role ${JSON.stringify(message.role)}`;
  }
}

/** An approval entry's `decisions`: a non-empty array of `{ tool_call_id, decision: "approve" | "deny", reason? }`. */
function decisionsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return 'approval entry needs a non-empty decisions array';
  for (const item of value as unknown[]) {
    const decision = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof decision.tool_call_id !== 'string') return 'approval decision has no tool_call_id';
    if (decision.decision !== 'approve' && decision.decision !== 'deny') return 'approval decision must be "approve" or "deny"';
    if (decision.reason !== undefined && typeof decision.reason !== 'string') return 'approval decision reason must be a string';
  }
  return undefined;
}

/** An assistant message's optional `approval_requests`: an array of `{ tool_call_id, reason }`. */
function approvalRequestsProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const valid =
    Array.isArray(value) &&
    (value as unknown[]).every((item) => {
      const request = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
      return typeof request.tool_call_id === 'string' && typeof request.reason === 'string';
    });
  return valid ? undefined : 'approval_requests must be an array of { tool_call_id, reason }';
}

function isImage(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const image = value as Record<string, unknown>;
  return image.type === 'image' && typeof image.media_type === 'string' && typeof image.data === 'string';
}

function blockProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'content block is not an object';
  const block = value as Record<string, unknown>;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? undefined : 'text block has no text';
    case 'thinking':
      return typeof block.thinking === 'string' && typeof block.signature === 'string' ? undefined : 'thinking block needs thinking and signature';
    case 'redacted_thinking':
      return typeof block.data === 'string' ? undefined : 'redacted_thinking block has no data';
    case 'tool_call':
      return typeof block.id === 'string' &&
        typeof block.name === 'string' &&
        typeof block.input === 'object' &&
        block.input !== null &&
        !Array.isArray(block.input)
        ? undefined
        : 'tool_call block needs id, name and an object input';
    default:
      return `unknown content block type ${JSON.stringify(block.type)}`;
  }
}
