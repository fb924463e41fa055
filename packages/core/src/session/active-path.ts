/**
 * The active path of a session, rebuilt once and then extended by each append, so that a
 * log that is appended to never walks the whole session again. The path is split at its last
 * entry a prompt can follow (`acceptsPrompt`): what comes before it, rebuilt into messages,
 * no later entry can change (see `rebuildPath`); what comes after it — one turn's entries at
 * most: its prompt, tool rounds, approvals — is rebuilt at each load. Immutable: an extension
 * is a new value, so a copy kept by a cache stays what it was whatever its log does next.
 */
import { Conversation } from '../conversation.js';
import type { Message } from '../messages.js';
import { activeEntry, type EntryLookup, newestModel, pathFrom, rebuildPath, resumeParent, type RebuiltSession } from './rebuild.js';
import type { ActiveModel, RecordEntry, SessionEntry } from './records.js';
import { acceptsPrompt } from './tree.js';

export interface ActivePath {
  /** The last entry on the path a prompt can follow; null when there is none (the root). */
  readonly closedAt: RecordEntry | null;
  /** The conversation of the path up to `closedAt`, and the entry each message came from (null: synthesized). */
  readonly messages: readonly Message[];
  readonly origins: readonly (RecordEntry | null)[];
  /** The newest model the path up to `closedAt` names. */
  readonly closedModel: ActiveModel | null;
  /** The path's entries after `closedAt`, up to the active entry (a dangling prompt included). */
  readonly open: readonly RecordEntry[];
}

/** The active path of `entries`, rebuilt from the root. `SessionCorruptError` when they do not form a tree. */
export function activePathOf(entries: readonly SessionEntry[], lookup: EntryLookup, source: string): ActivePath {
  const end = activeEntry(entries, lookup, source);
  return closeAfter({ closedAt: null, messages: [], origins: [], closedModel: null, open: [] }, end === null ? [] : pathFrom(end, lookup, source));
}

/**
 * The path once `batch` — entries just appended, each the child of the one before — is
 * committed; undefined when it cannot be told without a rebuild: a batch that does not start
 * on the path as it ends (after a load `at` an earlier entry), a leaf entry (a switch), or a
 * compaction (which drops what came before it).
 */
export function extendActivePath(path: ActivePath, batch: readonly SessionEntry[]): ActivePath | undefined {
  const first = batch[0];
  if (first === undefined) return path;
  const added: RecordEntry[] = [];
  let parent = first.parent_id;
  for (const entry of batch) {
    if (entry.type === 'leaf' || entry.type === 'compaction' || entry.parent_id !== parent) return undefined;
    added.push(entry);
    parent = entry.id;
  }
  // The batch follows an entry on the path: the path up to it, then the batch.
  let keep = path.open.length;
  while (keep > 0 && path.open[keep - 1]!.id !== first.parent_id) keep--;
  if (keep === 0 && first.parent_id !== (path.closedAt?.id ?? null)) return undefined;
  return closeAfter(path, [...path.open.slice(0, keep), ...added]);
}

/** `path` up to its `closedAt`, followed by `open`: its own `closedAt` moved to the last entry of `open` a prompt can follow. */
function closeAfter(path: ActivePath, open: readonly RecordEntry[]): ActivePath {
  let last = open.length - 1;
  while (last >= 0 && !acceptsPrompt(open[last]!)) last--;
  if (last < 0) return { ...path, open };
  const closing = open.slice(0, last + 1);
  const rebuilt = rebuildPath(closing);
  return {
    closedAt: closing[last]!,
    // The first close (from the root) holds the whole path, compactions included; a later one only what followed.
    messages: path.messages.length === 0 ? rebuilt.messages : [...path.messages, ...rebuilt.messages],
    origins: path.origins.length === 0 ? rebuilt.origins : [...path.origins, ...rebuilt.origins],
    closedModel: newestModel(closing) ?? path.closedModel,
    open: open.slice(last + 1),
  };
}

/** The active entry: the path's end. */
export function activeEnd(path: ActivePath): RecordEntry | null {
  return path.open.at(-1) ?? path.closedAt;
}

/** The load of the path, as `rebuildConversation` gives it: a conversation of its own, the dangling prompt apart. */
export function loadActivePath(path: ActivePath, leafId: string | null): RebuiltSession {
  const end = activeEnd(path);
  // `closedAt` is never a prompt: a dangling one is the last open entry.
  const dangling = end?.type === 'message' && end.message.role === 'user' ? end.message.content : null;
  const open = rebuildPath(dangling === null ? path.open : path.open.slice(0, -1));
  return {
    conversation: new Conversation(open.messages.length === 0 ? path.messages : [...path.messages, ...open.messages]),
    danglingUser: dangling,
    entries: open.origins.length === 0 ? path.origins : [...path.origins, ...open.origins],
    at: end,
    head: resumeParent(end),
    leafId,
    activeModel: newestModel(path.open) ?? path.closedModel,
  };
}
