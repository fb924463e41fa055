/**
 * Prompt ids, short the way session ids are. A prompt's id is its entry's UUIDv7, whose first
 * characters are a timestamp: prompts written within the same minute share their first 8.
 * Its short id is the end of its id — 8 characters, more when two prompts of the session
 * would share them (see `shortIds`) — and `--rewind` / `/rewind` take it, a unique prefix of
 * the id, or the whole id.
 */
import { entryPreview, type RecordEntry, type SessionTree } from '@panto/core';
import { CliError } from '../errors.js';
import { visible } from '../visible.js';
import { namesId, shortIds } from './short-id.js';

/** A prompt: a user message entry of the session. */
export type PromptEntry = RecordEntry & { type: 'message'; message: { role: 'user'; content: string } };

export function isPrompt(entry: RecordEntry): entry is PromptEntry {
  return entry.type === 'message' && entry.message.role === 'user';
}

/**
 * A prompt's first words on one line, cut at `max` characters, its control characters written as
 * escapes: a session read from a file is not trusted to leave the terminal alone.
 */
export function promptPreview(entry: PromptEntry, max = 60): string {
  return visible(entryPreview(entry, max));
}

/** The prompts of a session (every branch), in log order, with their short ids. */
export interface SessionPrompts {
  all: readonly PromptEntry[];
  /** The short id of each prompt, by its id: unique among `all`. */
  short: ReadonlyMap<string, string>;
  /** The prompts of the current path (the conversation as it is now), newest first. */
  onPath: readonly PromptEntry[];
}

/** The prompts of `tree`, with their short ids. */
export function sessionPrompts(tree: SessionTree): SessionPrompts {
  const all = tree.entries.filter((entry): entry is PromptEntry => entry.type !== 'leaf' && isPrompt(entry));
  const path = new Set(tree.activeLeaf === null ? [] : tree.pathTo(tree.activeLeaf).map((entry) => entry.id));
  return {
    all,
    short: shortIds(all.map((entry) => entry.id)),
    onPath: all.filter((entry) => path.has(entry.id)).reverse(),
  };
}

/** A value that names no prompt of the session, or several. */
export class PromptIdError extends CliError {
  readonly value: string;
  /** The ids it matches (empty: none). */
  readonly matches: readonly string[];
  constructor(message: string, value: string, matches: readonly string[]) {
    super(message);
    this.name = 'PromptIdError';
    this.value = value;
    this.matches = matches;
  }
}

/**
 * The prompt `value` names: its whole id, its short id (the end of its id), or a unique
 * prefix of its id. `PromptIdError` when it names none (saying which session was searched
 * and where its prompt ids are listed) or several (naming them by short id).
 *
 * @example
 * findPrompt(sessionPrompts(await store.loadTree()), '9e31c2aa', { session: store.sessionId(), listing: '/rewind lists them' });
 */
export function findPrompt(prompts: SessionPrompts, value: string, where: { session: string; listing: string }): PromptEntry {
  const wanted = value.trim();
  const exact = prompts.all.find((entry) => entry.id === wanted);
  const matches = exact !== undefined ? [exact] : wanted === '' ? [] : prompts.all.filter((entry) => namesId(entry.id, wanted));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new PromptIdError(`no prompt ${JSON.stringify(value)} in session ${where.session}: ${where.listing}`, value, []);
  }
  const named = matches.map((entry) => prompts.short.get(entry.id) ?? entry.id);
  throw new PromptIdError(
    `${JSON.stringify(value)} matches ${matches.length} prompts (${named.slice(0, 5).join(', ')}${named.length > 5 ? ', …' : ''}): give one of their short ids`,
    value,
    matches.map((entry) => entry.id),
  );
}
