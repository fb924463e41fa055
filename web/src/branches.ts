/**
 * A session's tree of entries as the page reads it (`GET /sessions/{id}/entries`; the format
 * is docs/session-format.md): the versions of a prompt, where switching to a branch lands,
 * when a branch was last used, what a compaction replaced, and the entry an edited prompt
 * follows. Pure functions over the log: no requests here.
 */
import type { Entry, StoredMessage } from './api/wire.js';

/** The log, indexed: each entry with its place in the log, and the entries that follow each one. */
export interface EntryIndex {
  byId: ReadonlyMap<string, { entry: Entry; position: number }>;
  /** Entry id → the entries that follow it, in log order; `null` → the roots. */
  children: ReadonlyMap<string | null, readonly Entry[]>;
}

export function indexEntries(entries: readonly Entry[]): EntryIndex {
  const byId = new Map<string, { entry: Entry; position: number }>();
  const children = new Map<string | null, Entry[]>();
  entries.forEach((entry, position) => {
    byId.set(entry.id, { entry, position });
    const siblings = children.get(entry.parent_id);
    if (siblings) siblings.push(entry);
    else children.set(entry.parent_id, [entry]);
  });
  return { byId, children };
}

const isPrompt = (entry: Entry): boolean => entry.type === 'message' && entry.message.role === 'user';

/** The versions of a prompt: every prompt that follows the same entry (or, for a first prompt, every first prompt). */
export interface PromptVersions {
  /** Their ids, oldest first. */
  ids: string[];
  /** Which of them the prompt is (0-based). */
  position: number;
}

/** The versions of prompt `id`; null when it has none but itself, or is not in the log. */
export function promptVersions(index: EntryIndex, id: string): PromptVersions | null {
  const found = index.byId.get(id);
  if (found === undefined) return null;
  const ids = (index.children.get(found.entry.parent_id) ?? []).filter(isPrompt).map((entry) => entry.id);
  return ids.length > 1 ? { ids, position: ids.indexOf(id) } : null;
}

/**
 * Where switching to the branch that starts at `id` lands: its newest entry — the branch as
 * it was last written, or last switched to (a `leaf` entry stands for the entry it names).
 */
export function latestOf(index: EntryIndex, id: string): string {
  let newest = index.byId.get(id);
  const stack = [id];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    for (const child of index.children.get(next) ?? []) {
      const found = index.byId.get(child.id);
      if (found !== undefined && (newest === undefined || found.position > newest.position)) newest = found;
      stack.push(child.id);
    }
  }
  if (newest === undefined) return id;
  return newest.entry.type === 'leaf' && newest.entry.parent_id !== null ? newest.entry.parent_id : newest.entry.id;
}

/** When the branch ending at `leafId` was last used: written, or switched to since (ISO 8601). */
export function lastUsed(index: EntryIndex, leafId: string, written: string): string {
  let latest = written;
  for (const child of index.children.get(leafId) ?? []) if (child.type === 'leaf' && child.timestamp > latest) latest = child.timestamp;
  return latest;
}

/** The prompt nearest before entry `id` on its path (itself when it is one): what a branch ending there answered. */
export function promptBefore(index: EntryIndex, id: string): string | undefined {
  let at: string | null = id;
  for (let guard = 0; at !== null && guard <= index.byId.size; guard++) {
    const entry: Entry | undefined = index.byId.get(at)?.entry;
    if (entry === undefined) return undefined;
    if (entry.type === 'message' && entry.message.role === 'user') return entry.message.content;
    at = entry.parent_id;
  }
  return undefined;
}

/** An entry of the log as the API answers a message of a session: the message with its entry's id and time. */
function storedMessage(entry: Entry): StoredMessage | null {
  switch (entry.type) {
    case 'message':
      return { ...entry.message, id: entry.id, timestamp: entry.timestamp };
    case 'compaction': {
      const { summary, provider, model, usage, prior_usage, id, timestamp } = entry;
      return { role: 'compaction', summary, provider, model, usage, prior_usage, id, timestamp };
    }
    case 'leaf':
    case 'approval':
      return null;
  }
}

/**
 * What compaction `id` replaced: the path from the root to the entry before it, oldest first,
 * as stored messages (an older compaction on it as its summary). Empty when `id` is not in the log.
 */
export function replacedBy(index: EntryIndex, id: string): StoredMessage[] {
  const path: StoredMessage[] = [];
  let at = index.byId.get(id)?.entry.parent_id ?? null;
  for (let guard = 0; at !== null && guard <= index.byId.size; guard++) {
    const entry = index.byId.get(at)?.entry;
    if (entry === undefined) break;
    const message = storedMessage(entry);
    if (message !== null) path.push(message);
    at = entry.parent_id;
  }
  return path.reverse();
}

/** Whether a prompt may follow this message (what `parent_id` accepts): an answer that calls no tools, a system message, a compaction. */
function acceptsPrompt(message: StoredMessage): boolean {
  switch (message.role) {
    case 'system':
    case 'compaction':
      return true;
    case 'assistant':
      return !message.content.some((block) => block.type === 'tool_call');
    case 'user':
    case 'tool_result':
      return false;
  }
}

/**
 * The entry a new version of a prompt follows (`parent_id` of `POST …/messages`), given the
 * message just before it on the path (`previous`): the prompt's own parent — that message, or
 * null for a first prompt. Undefined when a prompt cannot follow that message (a tool result:
 * the turn before was stopped among its tools) or it has no id.
 */
export function editParent(previous: StoredMessage | undefined): string | null | undefined {
  if (previous === undefined) return null;
  return previous.id !== undefined && acceptsPrompt(previous) ? previous.id : undefined;
}
