/**
 * A session's tree of entries as the page reads it (`GET /sessions/{id}/entries`; the format
 * is docs/session-format.md): the versions of a prompt and the failed prompts before it, the
 * branches, where switching to a branch lands, when a branch was last used, what a compaction
 * replaced, and the entry an edited prompt follows. Pure functions over what the server
 * answered: no requests here, and no rule of the server's written again (whether a prompt may
 * follow an entry, whether a prompt got its answer: the API says).
 */
import type { Entry, SessionTree, StoredMessage, TreeLeaf } from './api/wire.js';

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

/** The prompts of the tree that never got their answer (its leaves marked `unanswered`). */
export function unansweredPrompts(tree: SessionTree | null): ReadonlySet<string> {
  return new Set((tree?.leaves ?? []).filter((leaf) => leaf.unanswered).map((leaf) => leaf.id));
}

/**
 * The branches of the tree: its leaves but the failed prompts — a prompt that never got its
 * answer is shown where it was sent (see {@link failedBefore}), not as a branch — unless it is
 * where the session is now (its `dangling_user`, with Resend).
 */
export function branchLeaves(tree: SessionTree): TreeLeaf[] {
  return tree.leaves.filter((leaf) => !leaf.unanswered || leaf.id === tree.active_leaf);
}

/**
 * The versions of prompt `id`: the prompts that follow the same entry, but those that never got
 * their answer (`unanswered`: failed, and gone on from) — those are shown before the prompt
 * that went on after them. Null when it has none but itself, or is not in the log.
 */
export function promptVersions(index: EntryIndex, id: string, unanswered: ReadonlySet<string>): PromptVersions | null {
  const found = index.byId.get(id);
  if (found === undefined) return null;
  const ids = siblingPrompts(index, found.entry)
    .filter((entry) => entry.id === id || !unanswered.has(entry.id))
    .map((entry) => entry.id);
  return ids.length > 1 ? { ids, position: ids.indexOf(id) } : null;
}

/** A prompt that failed: sent, and never answered. */
export interface FailedPrompt {
  id: string;
  text: string;
}

/**
 * The prompts that failed just before prompt `id` — sent from the same point, never answered,
 * and gone on from with `id` (a new message after a failure follows it: the session format
 * makes it the failed prompt's sibling). Oldest first; one sent again with the same words as
 * `id` (a retry, a Resend) is not listed, nor the same words twice.
 */
export function failedBefore(index: EntryIndex, id: string, unanswered: ReadonlySet<string>): FailedPrompt[] {
  const found = index.byId.get(id);
  if (found === undefined || found.entry.type !== 'message' || found.entry.message.role !== 'user') return [];
  const own = found.entry.message.content;
  let failed: FailedPrompt[] = [];
  for (const entry of siblingPrompts(index, found.entry)) {
    if (entry.id === id) break;
    // An answered version between them: what failed before it is that version's story, not this one's.
    if (!unanswered.has(entry.id)) failed = [];
    else if (entry.type === 'message' && entry.message.role === 'user') failed.push({ id: entry.id, text: entry.message.content });
  }
  return failed.filter((prompt, position) => prompt.text !== own && !failed.slice(position + 1).some((later) => later.text === prompt.text));
}

/** The prompts that follow the same entry as `entry` (itself included), in log order. */
function siblingPrompts(index: EntryIndex, entry: Entry): readonly Entry[] {
  return (index.children.get(entry.parent_id) ?? []).filter(isPrompt);
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

/**
 * The entry a new version of a prompt follows (`parent_id` of `POST …/messages`), given the
 * message just before it on the path (`previous`): the prompt's own parent — that message, or
 * null for a first prompt. Undefined when a prompt cannot follow that message (the server says
 * so with `accepts_prompt`: after a tool result, the turn before was stopped among its tools)
 * or it has no id.
 */
export function editParent(previous: StoredMessage | undefined): string | null | undefined {
  if (previous === undefined) return null;
  return previous.id !== undefined && previous.accepts_prompt === true ? previous.id : undefined;
}
