import { Conversation } from './conversation.js';
import { SessionCorruptError } from './errors.js';
import { emptyUsage, type Message, type ToolResultMessage } from './messages.js';
import type { ActiveModel, LoadedSession, SessionEntry } from './session-store.js';

/** What rebuilding a session's entries yields, beyond the {@link LoadedSession}. */
export interface RebuiltSession extends LoadedSession {
  /** The parent the next appended entry gets: the leaf, or the dangling prompt's parent. */
  head: string | null;
  /** The newest entry of the session (the leaf the path was followed from), or null. */
  leafId: string | null;
  activeModel: ActiveModel | null;
}

/** The text given to a tool call whose result was never recorded (a crash mid-tool). */
export const INTERRUPTED_TOOL_RESULT =
  'Tool call interrupted: the session ended before this tool returned a result. It may or may not have taken effect.';

/**
 * Rebuilds the conversation from a session's entries (in the order they were written).
 *
 * - The path is followed by `parent_id` from the newest entry (the last one written).
 * - Everything before the newest compaction on the path is replaced by its summary; the
 *   system messages before it are kept, since they make up the system prompt.
 * - A user entry at the very end of the path is the dangling prompt: left out of the
 *   conversation, returned as `danglingUser`, and `head` becomes its parent, so the next
 *   entry is its sibling.
 * - A tool call with no recorded result (a crash while the tool ran) gets an error result
 *   saying so, right after the results that were recorded, so every provider accepts the
 *   conversation. The synthesized result is not written to the store.
 */
export function rebuildConversation(entries: readonly SessionEntry[], source = 'session'): RebuiltSession {
  const leaf = entries[entries.length - 1];
  if (leaf === undefined) {
    return { conversation: new Conversation(), danglingUser: null, head: null, leafId: null, activeModel: null };
  }
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);

  const path: SessionEntry[] = [];
  let cursor: SessionEntry | undefined = leaf;
  while (cursor !== undefined) {
    path.push(cursor);
    if (path.length > entries.length) throw new SessionCorruptError(source, null, `entries form a cycle at ${cursor.id}`);
    const parentId: string | null = cursor.parent_id;
    if (parentId === null) break;
    cursor = byId.get(parentId);
    if (cursor === undefined) {
      throw new SessionCorruptError(source, null, `entry ${path[path.length - 1]!.id} refers to a missing parent ${parentId}`);
    }
  }
  path.reverse();

  const activeModel = newestModel(path);

  const head = resumeParent(leaf);
  let danglingUser: string | null = null;
  if (isDanglingPrompt(leaf)) {
    danglingUser = leaf.message.content;
    path.pop();
  }

  let compactionAt = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]!.type === 'compaction') {
      compactionAt = i;
      break;
    }
  }
  const messages: Message[] = [];
  for (let i = 0; i < path.length; i++) {
    const entry = path[i]!;
    if (entry.type === 'compaction') {
      if (i !== compactionAt) continue;
      messages.push({
        role: 'compaction',
        summary: entry.summary,
        provider: entry.provider,
        model: entry.model,
        usage: entry.usage ?? emptyUsage(),
        prior_usage: entry.prior_usage ?? emptyUsage(),
      });
    } else if (i > compactionAt || entry.message.role === 'system') {
      messages.push(entry.message);
    }
  }
  return {
    conversation: new Conversation(repairToolResults(messages)),
    danglingUser,
    head,
    leafId: leaf.id,
    activeModel,
  };
}

/** Whether `leaf`, at the end of a path, is a prompt nobody answered. */
function isDanglingPrompt(leaf: SessionEntry): leaf is SessionEntry & { type: 'message'; message: { role: 'user'; content: string } } {
  return leaf.type === 'message' && leaf.message.role === 'user';
}

/**
 * The parent a handle that resumes at `leaf` chains its next entry to: the leaf itself —
 * or, when the leaf is a prompt nobody answered, that prompt's parent, so that the prompt
 * sent again (or edited) becomes its sibling. The one statement of the rule every store uses.
 */
export function resumeParent(leaf: SessionEntry | null): string | null {
  if (leaf === null) return null;
  return isDanglingPrompt(leaf) ? leaf.parent_id : leaf.id;
}

/** The provider and model an entry names, if it names them. */
export function modelOf(entry: SessionEntry): ActiveModel | null {
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
  let repaired: Message[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role !== 'assistant') {
      repaired?.push(message);
      continue;
    }
    const calls = message.content.filter((block) => block.type === 'tool_call');
    repaired?.push(message);
    if (calls.length === 0) continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length; j++) {
      const next = messages[j]!;
      if (next.role !== 'tool_result') break;
      answered.add(next.tool_call_id);
      repaired?.push(next);
    }
    const missing = calls.filter((call) => !answered.has(call.id));
    if (missing.length > 0) {
      repaired ??= messages.slice(0, j);
      for (const call of missing) {
        const result: ToolResultMessage = {
          role: 'tool_result',
          tool_call_id: call.id,
          tool_name: call.name,
          content: INTERRUPTED_TOOL_RESULT,
          is_error: true,
        };
        repaired.push(result);
      }
    }
    i = j - 1;
  }
  return repaired ?? messages;
}
