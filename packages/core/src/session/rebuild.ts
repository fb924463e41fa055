import { Conversation } from '../conversation.js';
import { EntryNotFoundError, SessionCorruptError } from '../errors.js';
import { emptyUsage, toolResultMessage, type AssistantMessage, type Message, type ToolCallBlock, type ToolResultMessage } from '../messages.js';
import type { ActiveModel, LoadedSession, RecordEntry, SessionEntry } from './records.js';

/** What rebuilding a session's entries yields, beyond the {@link LoadedSession}. */
export interface RebuiltSession extends LoadedSession {
  /** The parent the next appended entry gets: the path's end, or the dangling prompt's parent. */
  head: string | null;
  /** The newest entry of the session (the last written, a leaf entry included), or null. */
  leafId: string | null;
  /** The provider and model of the newest entry on the path that names them. */
  activeModel: ActiveModel | null;
}

export interface RebuildOptions {
  /**
   * Rebuild the path to this entry instead of the active one; `null` for the empty path at
   * the root. `EntryNotFoundError` when `entries` hold no such entry.
   */
  at?: string | null;
}

/** The text given to a tool call whose result was never recorded (a crash mid-tool). */
export const INTERRUPTED_TOOL_RESULT = 'Tool call interrupted: the session ended before this tool returned a result. It may or may not have taken effect.';

/**
 * Rebuilds the conversation from a session's entries (in the order they were written).
 *
 * - The path is followed by `parent_id` from the newest entry (the last one written); a
 *   leaf entry stands for its parent — the entry a switch chose (see {@link activeEntry}).
 *   With `options.at`, from that entry instead.
 * - Everything before the newest compaction on the path is replaced by its summary; the
 *   system messages before it are kept, since they make up the system prompt.
 * - A user entry at the very end of the path is the dangling prompt: left out of the
 *   conversation, returned as `danglingUser`, and `head` becomes its parent, so the next
 *   entry is its sibling.
 * - A tool call with no recorded result (a crash while the tool ran) gets an error result
 *   saying so, right after the results that were recorded, so every provider accepts the
 *   conversation. The synthesized result is not written to the store. The exception: calls
 *   that wait for a person's decision — asked for by the path's last assistant message
 *   (`stop_reason: "awaiting_approval"`) and not decided by an `approval` entry after it —
 *   are left without a result (see `pendingApprovals`). A call approved but without a result
 *   is interrupted like any other: it is never waiting again, so it never runs twice.
 * - `approval` entries are no messages: the conversation holds their denials' results only.
 *
 * `byId`: the entries by id, when the caller holds them already (see {@link indexEntries}).
 */
export function rebuildConversation(
  entries: readonly SessionEntry[],
  source = 'session',
  options: RebuildOptions = {},
  byId: EntryLookup = indexEntries(entries),
): RebuiltSession {
  const leafId = entries[entries.length - 1]?.id ?? null;
  let end: RecordEntry | null;
  if (options.at === undefined) {
    end = activeEntry(entries, byId, source);
  } else if (options.at === null) {
    end = null;
  } else {
    const named = byId.get(options.at);
    if (named === undefined) throw new EntryNotFoundError(options.at);
    end = standsFor(named, byId, source);
  }
  if (end === null) {
    return {
      conversation: new Conversation(),
      danglingUser: null,
      entries: [],
      at: null,
      head: null,
      leafId,
      activeModel: null,
    };
  }
  const path = pathFrom(end, byId, source);
  const activeModel = newestModel(path);

  const head = resumeParent(end);
  let danglingUser: string | null = null;
  if (isDanglingPrompt(end)) {
    danglingUser = end.message.content;
    path.pop();
  }
  const repaired = rebuildPath(path);
  return {
    conversation: new Conversation(repaired.messages),
    danglingUser,
    entries: repaired.origins,
    at: end,
    head,
    leafId,
    activeModel,
  };
}

/**
 * The messages of a path (its dangling prompt already taken off), each with the entry it came from (null
 * for a synthesized tool result), by the rules of {@link rebuildConversation}. Also what a
 * stretch of a path that follows an entry a prompt can follow (`acceptsPrompt`) adds after
 * the messages up to it: nothing after such an entry changes what comes before it.
 */
export function rebuildPath(path: readonly RecordEntry[]): { messages: Message[]; origins: (RecordEntry | null)[] } {
  const onPath = messagesOnPath(path);
  return repairWithOrigins(onPath.messages, onPath.origins, onPath.decided);
}

/** How the path rules look entries up: a map by id, or a view of one. `size`: the entries there are (bounds a walk). */
export interface EntryLookup {
  get(id: string): SessionEntry | undefined;
  readonly size: number;
}

/**
 * The messages of a path, each with the entry it came from: from the newest compaction on
 * (the compaction as its summary), and the system messages before it, which make up the
 * system prompt. `decided`: the tool calls an `approval` entry after the path's last assistant
 * message decided — only those, so that a model that repeats a call id in a later pause is
 * asked again rather than read as decided by an old approval.
 */
function messagesOnPath(path: readonly RecordEntry[]): { messages: Message[]; origins: RecordEntry[]; decided: Set<string> } {
  let compactionAt = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]!.type === 'compaction') {
      compactionAt = i;
      break;
    }
  }
  const messages: Message[] = [];
  const origins: RecordEntry[] = [];
  const decided = new Set<string>();
  for (let i = 0; i < path.length; i++) {
    const entry = path[i]!;
    if (entry.type === 'approval') {
      for (const decision of entry.decisions) decided.add(decision.tool_call_id);
    } else if (entry.type === 'compaction') {
      if (i !== compactionAt) continue;
      messages.push({
        role: 'compaction',
        summary: entry.summary,
        provider: entry.provider,
        model: entry.model,
        usage: entry.usage ?? emptyUsage(),
        prior_usage: entry.prior_usage ?? emptyUsage(),
      });
      origins.push(entry);
    } else if (i > compactionAt || entry.message.role === 'system') {
      // (Set.clear allocates a new table even for an empty set: clear only one that holds something.)
      if (entry.message.role === 'assistant' && decided.size > 0) decided.clear();
      messages.push(entry.message);
      origins.push(entry);
    }
  }
  return { messages, origins, decided };
}

/** Every entry by id. */
export function indexEntries(entries: readonly SessionEntry[]): Map<string, SessionEntry> {
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  return byId;
}

/**
 * The entry `entry` stands for on a path: itself, or — for a leaf entry — the entry it
 * switched to. `SessionCorruptError` when that entry is missing.
 */
export function standsFor(entry: SessionEntry, byId: EntryLookup, source: string): RecordEntry {
  let cursor: SessionEntry = entry;
  for (let hops = 0; cursor.type === 'leaf'; hops++) {
    const target = byId.get(cursor.parent_id);
    if (target === undefined) throw new SessionCorruptError(source, null, `leaf entry ${cursor.id} refers to a missing entry ${cursor.parent_id}`);
    if (hops > byId.size) throw new SessionCorruptError(source, null, `entries form a cycle at ${cursor.id}`);
    cursor = target;
  }
  return cursor;
}

/**
 * The active entry of a session: the newest entry, or the entry a newest leaf entry
 * switched to. The one statement of "what does resume load?"; null for an empty session.
 */
export function activeEntry(entries: readonly SessionEntry[], byId: EntryLookup, source: string): RecordEntry | null {
  const newest = entries[entries.length - 1];
  return newest === undefined ? null : standsFor(newest, byId, source);
}

/**
 * The path from the root to `end`, following `parent_id` (leaf entries, which nothing
 * follows, are passed over should one appear on the way). `SessionCorruptError` for a
 * missing parent or a cycle.
 */
export function pathFrom(end: RecordEntry, byId: EntryLookup, source: string): RecordEntry[] {
  const path: RecordEntry[] = [];
  let cursor: SessionEntry | undefined = end;
  let steps = 0;
  while (cursor !== undefined) {
    if (++steps > byId.size + 1) throw new SessionCorruptError(source, null, `entries form a cycle at ${cursor.id}`);
    if (cursor.type !== 'leaf') path.push(cursor);
    const parentId: string | null = cursor.parent_id;
    if (parentId === null) break;
    const child: SessionEntry = cursor;
    cursor = byId.get(parentId);
    if (cursor === undefined) throw new SessionCorruptError(source, null, `entry ${child.id} refers to a missing parent ${parentId}`);
  }
  return path.reverse();
}

/** Whether `leaf`, at the end of a path, is a prompt nobody answered. */
function isDanglingPrompt(leaf: RecordEntry): leaf is RecordEntry & { type: 'message'; message: { role: 'user'; content: string } } {
  return leaf.type === 'message' && leaf.message.role === 'user';
}

/**
 * The parent a handle that resumes at `leaf` chains its next entry to: the leaf itself —
 * or, when the leaf is a prompt nobody answered, that prompt's parent, so that the prompt
 * sent again (or edited) becomes its sibling. The one statement of the rule every store uses.
 */
export function resumeParent(leaf: RecordEntry | null): string | null {
  if (leaf === null) return null;
  return isDanglingPrompt(leaf) ? leaf.parent_id : leaf.id;
}

/** The provider and model an entry names, if it names them. */
export function modelOf(entry: SessionEntry): ActiveModel | null {
  if (entry.type === 'leaf' || entry.type === 'approval') return null;
  if (entry.type === 'compaction') return { provider: entry.provider, model: entry.model };
  const message = entry.message;
  if (message.role === 'assistant') return { provider: message.provider, model: message.model };
  if (message.role === 'user' && message.provider !== undefined && message.model !== undefined) {
    return { provider: message.provider, model: message.model };
  }
  return null;
}

/** The provider and model of the newest entry that names them. */
export function newestModel(entries: readonly SessionEntry[]): ActiveModel | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const model = modelOf(entries[i]!);
    if (model !== null) return model;
  }
  return null;
}

/** Inserts an error result for every tool call whose result is missing. */
export function repairToolResults(messages: Message[]): Message[] {
  return repairWithOrigins(
    messages,
    messages.map(() => null),
  ).messages;
}

/**
 * {@link repairToolResults}, keeping `origins` (one per message) in step: a synthesized
 * result's origin is null. Returns the inputs themselves when nothing was missing. Calls
 * waiting for a decision at the end (see {@link rebuildConversation}; `decided` are those an
 * approval entry decided) keep no result.
 */
function repairWithOrigins<T>(messages: Message[], origins: T[], decided: ReadonlySet<string> = new Set()): { messages: Message[]; origins: (T | null)[] } {
  let repaired: Message[] | undefined;
  let repairedOrigins: (T | null)[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    repaired?.push(message);
    repairedOrigins?.push(origins[i]!);
    if (message.role !== 'assistant') continue;
    // Its results: the tool results right after it.
    let j = i + 1;
    while (j < messages.length && messages[j]!.role === 'tool_result') j++;
    const waiting = j === messages.length ? waitingCalls(message, decided) : undefined;
    const missing = unansweredCalls(message, messages, i + 1, j, waiting);
    if (missing !== undefined && repaired === undefined) {
      repaired = messages.slice(0, j);
      repairedOrigins = origins.slice(0, j);
    } else {
      for (let k = i + 1; k < j; k++) {
        repaired?.push(messages[k]!);
        repairedOrigins?.push(origins[k]!);
      }
    }
    if (missing !== undefined) {
      for (const call of missing) {
        repaired!.push(toolResultMessage(call, INTERRUPTED_TOOL_RESULT, true));
        repairedOrigins!.push(null);
      }
    }
    i = j - 1;
  }
  return { messages: repaired ?? messages, origins: repairedOrigins ?? origins };
}

/**
 * The tool calls of `message` that no result in `messages[from, to)` answers and that do not
 * wait for a decision, or undefined when there are none — without allocating anything in
 * that case, which is every message of a session that was not cut short.
 */
function unansweredCalls(
  message: AssistantMessage,
  messages: readonly Message[],
  from: number,
  to: number,
  waiting: ReadonlySet<string> | undefined,
): ToolCallBlock[] | undefined {
  let missing: ToolCallBlock[] | undefined;
  // Many results for one message (a hostile file, say): look them up in a set, not one by one.
  const answered = to - from > 16 ? new Set(messages.slice(from, to).map((result) => (result as ToolResultMessage).tool_call_id)) : undefined;
  const content = message.content;
  for (let b = 0; b < content.length; b++) {
    const block = content[b]!;
    if (block.type !== 'tool_call' || waiting?.has(block.id)) continue;
    if (answered === undefined ? answers(messages, from, to, block.id) : answered.has(block.id)) continue;
    missing ??= [];
    missing.push(block);
  }
  return missing;
}

/** Whether a tool result in `messages[from, to)` answers the call `id`. */
function answers(messages: readonly Message[], from: number, to: number, id: string): boolean {
  for (let k = from; k < to; k++) if ((messages[k] as ToolResultMessage).tool_call_id === id) return true;
  return false;
}

/** The calls of `message` that wait for a decision, were it the last of its conversation. */
function waitingCalls(message: AssistantMessage, decided: ReadonlySet<string>): Set<string> {
  if (message.stop_reason !== 'awaiting_approval') return new Set();
  return new Set((message.approval_requests ?? []).map((request) => request.tool_call_id).filter((id) => !decided.has(id)));
}
