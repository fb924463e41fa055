/** A session's title: what its first user prompt gives it, and what a title a client sets may hold. */
import type { SessionEntry } from '@panto/core';

/** Longest title kept on the META item (a label for lists, not the prompt). */
export const TITLE_MAX_LENGTH = 120;

/** Characters a title may not hold: control characters, bidirectional embeddings, overrides and isolates, lone surrogates. */
const TITLE_CONTROLS = /[\p{Cc}\u202a-\u202e\u2066-\u2069\p{Cs}]/gu;
/** A character that shows: not white space, a format character (zero-width ones), a combining mark or a blank filler. */
const VISIBLE = /[^\p{White_Space}\p{Cf}\p{Mn}\p{Me}\p{Cc}\p{Cs}\u115f\u1160\u2800\u3164\uffa0]/u;

/**
 * What is wrong with a title a client gives (`PATCH /sessions/{id}`), in words; undefined
 * for a good one. A title is shown in lists and terminals: control characters (NUL, BEL, ESC
 * of an ANSI sequence, newlines), bidirectional overrides (U+202E) and lone surrogates are
 * refused, and so is a title with nothing visible (only spaces or zero-width characters).
 */
export function titleProblem(title: string): string | undefined {
  if (title.trim() === '') return 'must not be empty';
  if (new RegExp(TITLE_CONTROLS.source, 'u').test(title)) {
    return 'must not contain control characters, bidirectional controls (U+202A–U+202E, U+2066–U+2069) or lone surrogates';
  }
  if (!VISIBLE.test(title)) return 'must contain a visible character';
  if (Array.from(title).length > TITLE_MAX_LENGTH) return `at most ${TITLE_MAX_LENGTH} characters`;
  return undefined;
}

/**
 * The title a first user prompt gives a session, or null for one with nothing visible:
 * white space collapsed, the characters {@link titleProblem} refuses dropped, cut to
 * {@link TITLE_MAX_LENGTH}.
 */
export function titleOf(prompt: string): string | null {
  const collapsed = prompt.replace(/\s+/g, ' ').replace(TITLE_CONTROLS, '').replace(/ {2,}/g, ' ').trim();
  if (!VISIBLE.test(collapsed)) return null;
  const chars = Array.from(collapsed);
  return chars.length <= TITLE_MAX_LENGTH ? collapsed : `${chars.slice(0, TITLE_MAX_LENGTH - 1).join('')}…`;
}

/** The title of the first user prompt in `entries` that yields one ({@link titleOf}); null when none does. */
export function firstTitle(entries: readonly SessionEntry[]): string | null {
  for (const entry of entries) {
    if (entry.type === 'message' && entry.message.role === 'user') {
      const title = titleOf(entry.message.content);
      if (title !== null) return title;
    }
  }
  return null;
}

/** How a fork's title ends: ` (fork)`, then ` (fork 2)`, ` (fork 3)` for a fork of a fork. */
const FORK_MARK = / \(fork(?: (\d+))?\)$/;

/**
 * The title of a fork of a session titled `title` (its own, or its first prompt's): the same,
 * marked ` (fork)` — ` (fork 2)` for a fork of a fork, and so on — so the two can be told
 * apart in a list; cut to fit {@link TITLE_MAX_LENGTH}. Null for a session without a title.
 */
export function forkTitle(title: string | null): string | null {
  if (title === null) return null;
  const marked = FORK_MARK.exec(title);
  const base = marked === null ? title : title.slice(0, marked.index);
  const mark = marked === null ? ' (fork)' : ` (fork ${Number(marked[1] ?? 1) + 1})`;
  const chars = Array.from(base);
  const room = TITLE_MAX_LENGTH - mark.length;
  return `${chars.length <= room ? base : `${chars.slice(0, room - 1).join('')}…`}${mark}`;
}
