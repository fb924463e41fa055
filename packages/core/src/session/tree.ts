/**
 * A session's whole tree of entries, for reading: every branch in log order, its leaves and
 * branch points, the path to any entry, a one-line preview of each, and the conversation at
 * any entry. What a `/tree` view, a rewind or a fork needs; built by `SessionLog.tree()` or
 * `store.loadTree()`, never changed afterwards.
 */
import { EntryNotFoundError, SessionCorruptError } from '../errors.js';
import { addUsage, assistantText, emptyUsage, type Usage } from '../messages.js';
import { activeEntry, indexEntries, pathFrom, rebuildConversation, standsFor } from './rebuild.js';
import type { DiskMessage, LoadedSession, RecordEntry, SessionEntry } from './records.js';

/** Characters of a preview (an ellipsis ends a cut one). */
export const PREVIEW_LENGTH = 80;

/**
 * The tree of a session's entries.
 *
 * @example
 * const tree = await store.loadTree();
 * for (const leaf of tree.leaves) console.log(leaf.id === tree.activeLeaf ? '*' : ' ', tree.preview(leaf.id));
 * const path = tree.pathTo(tree.branchPoints[0]!.id);   // root first
 * await agent.continueFrom(path.at(-1)!.id);             // the next prompt starts a new branch there
 */
export class SessionTree {
  readonly #entries: readonly SessionEntry[];
  readonly #byId: ReadonlyMap<string, SessionEntry>;
  readonly #source: string;
  /** The entries that follow each entry (null: the roots), leaf entries left out, in log order. */
  readonly #children = new Map<string | null, RecordEntry[]>();
  /** The entry the session's active path ends at; null for an empty session. */
  readonly activeLeaf: string | null;

  private constructor(entries: readonly SessionEntry[], source: string) {
    this.#entries = entries;
    this.#source = source;
    this.#byId = indexEntries(entries);
    for (const entry of entries) {
      if (entry.parent_id !== null && !this.#byId.has(entry.parent_id)) {
        throw new SessionCorruptError(source, null, `entry ${entry.id} refers to a missing parent ${entry.parent_id}`);
      }
      if (entry.type === 'leaf') continue;
      const siblings = this.#children.get(entry.parent_id);
      if (siblings === undefined) this.#children.set(entry.parent_id, [entry]);
      else siblings.push(entry);
    }
    this.activeLeaf = activeEntry(entries, this.#byId, source)?.id ?? null;
  }

  /**
   * The tree of `entries` (in the order they were written; kept, not copied).
   * `SessionCorruptError` naming `source` when they do not form a tree.
   */
  static of(entries: readonly SessionEntry[], source = 'session'): SessionTree {
    return new SessionTree(entries, source);
  }

  /** Every entry of every branch, in log order: messages, compactions, and leaf entries (the switches). */
  get entries(): readonly SessionEntry[] {
    return this.#entries;
  }

  /** The entries nothing follows (leaf entries, which are switches, left out), in log order. */
  get leaves(): readonly RecordEntry[] {
    const leaves: RecordEntry[] = [];
    for (const entry of this.#entries) if (entry.type !== 'leaf' && !this.#children.has(entry.id)) leaves.push(entry);
    return leaves;
  }

  /** The entries that more than one entry follows, in log order. */
  get branchPoints(): readonly RecordEntry[] {
    const points: RecordEntry[] = [];
    for (const entry of this.#entries) {
      if (entry.type !== 'leaf' && (this.#children.get(entry.id)?.length ?? 0) > 1) points.push(entry);
    }
    return points;
  }

  /** The entry with `id`, if the session holds it. */
  get(id: string): SessionEntry | undefined {
    return this.#byId.get(id);
  }

  /**
   * The entry a path to `id` ends at: the entry itself, or — for a leaf entry — the entry it
   * switched to. `EntryNotFoundError` when the session holds no such entry.
   */
  resolve(id: string): RecordEntry {
    const entry = this.#byId.get(id);
    if (entry === undefined) throw new EntryNotFoundError(id);
    return standsFor(entry, this.#byId, this.#source);
  }

  /** The entries that follow `id` (null: the roots), in log order. */
  children(id: string | null): readonly RecordEntry[] {
    return this.#children.get(id) ?? [];
  }

  /** The path from the root to `id` (resolved as {@link resolve}), root first. */
  pathTo(id: string): RecordEntry[] {
    return pathFrom(this.resolve(id), this.#byId, this.#source);
  }

  /** The conversation a load at `at` gives (see `LoadOptions.at`); the active one when absent. */
  load(at?: string | null): LoadedSession {
    const { conversation, danglingUser, entries, at: end } = rebuildConversation(this.#entries, this.#source, at === undefined ? {} : { at }, this.#byId);
    return { conversation, danglingUser, entries, at: end };
  }

  /**
   * What every model call of the session used, on every branch: each answer's usage and each
   * compaction's own call — not the usage a compaction replaced, which the messages it
   * replaced count already. What the session has cost so far, where `Conversation.usage()`
   * is what the active branch carries.
   */
  usage(): Usage {
    let total = emptyUsage();
    for (const entry of this.#entries) {
      if (entry.type === 'compaction') total = addUsage(total, entry.usage);
      else if (entry.type === 'message' && entry.message.role === 'assistant') total = addUsage(total, entry.message.usage);
    }
    return total;
  }

  /** A one-line preview of the entry `id` (see {@link entryPreview}). */
  preview(id: string): string {
    const entry = this.#byId.get(id);
    if (entry === undefined) throw new EntryNotFoundError(id);
    return entryPreview(entry);
  }
}

/**
 * One line that says what an entry holds, at most `maxLength` characters, whitespace
 * collapsed: a prompt's or system message's text, an answer's text (or the tools it calls),
 * `[tool_name] result`, `[compaction] summary`, `[switch] → <entry id>`, `[approval] approve <call id>, deny <call id>`.
 */
export function entryPreview(entry: SessionEntry, maxLength = PREVIEW_LENGTH): string {
  return previewLine(previewText(entry), maxLength);
}

function previewText(entry: SessionEntry): string {
  switch (entry.type) {
    case 'leaf':
      return `[switch] → ${entry.parent_id}`;
    case 'compaction':
      return `[compaction] ${entry.summary}`;
    case 'approval':
      return `[approval] ${entry.decisions.map((decision) => `${decision.decision} ${decision.tool_call_id}`).join(', ')}`;
    case 'message': {
      const message = entry.message;
      switch (message.role) {
        case 'system':
        case 'user':
          return message.content;
        case 'tool_result':
          return `[${message.tool_name}] ${message.content}`;
        case 'assistant': {
          const text = assistantText(message);
          if (text.trim() !== '') return text;
          const calls = message.content.flatMap((block) => (block.type === 'tool_call' ? [block.name] : []));
          return calls.length > 0 ? `[calls ${calls.join(', ')}]` : `[${message.stop_reason}]`;
        }
      }
    }
  }
}

/** `text` on one line, whitespace collapsed, cut to at most `maxLength` characters (an ellipsis ends a cut one). */
export function previewLine(text: string, maxLength: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(line);
  return chars.length <= maxLength ? line : `${chars.slice(0, Math.max(0, maxLength - 1)).join('')}…`;
}

/**
 * Whether a new user prompt may follow `entry` — the points a user sees as "after the
 * model's answer": an assistant message that calls no tools, a system message, a
 * compaction, or the root (`null`). Not a prompt (it is the question, not an answer point),
 * not a tool result, a tool-calling assistant message or an approval entry (the model is
 * mid-turn there), and not a leaf entry (resolve it first).
 */
export function acceptsPrompt(entry: SessionEntry | DiskMessage | null): boolean {
  if (entry === null) return true;
  switch (entry.type) {
    case 'leaf':
    case 'approval':
      return false;
    case 'compaction':
      return true;
    case 'message': {
      const message = entry.message;
      switch (message.role) {
        case 'system':
          return true;
        case 'assistant':
          return !message.content.some((block) => block.type === 'tool_call');
        case 'user':
        case 'tool_result':
          return false;
      }
    }
  }
}
