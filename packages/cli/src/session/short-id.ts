/**
 * Short session ids. A UUIDv7 starts with a millisecond timestamp, so sessions started
 * within the same minute share their first 8 characters; the end of the id is random. A
 * session's short id is the end of its id — 8 characters, more when two sessions listed
 * together would share them — and `-r` takes it, or any unique prefix of the full id.
 */
import { AmbiguousSessionIdError, resolveSessionId, type SessionInfo } from '@panto/core';
import { readdir } from 'node:fs/promises';

export const SHORT_ID_LENGTH = 8;

/**
 * The shortest tail (at least 8 characters) of each id that no other id of `ids` ends
 * with, by id.
 *
 * @example
 * shortIds(['0197ab12-3456-7abc-8def-0123456789ab']).get('0197ab12-3456-7abc-8def-0123456789ab'); // '456789ab'
 */
export function shortIds(ids: readonly string[]): Map<string, string> {
  const result = new Map<string, string>();
  for (const id of ids) {
    let length = Math.min(SHORT_ID_LENGTH, id.length);
    while (length < id.length && ids.some((other) => other !== id && other.endsWith(id.slice(-length)))) length++;
    let tail = id.slice(-length);
    // A tail that starts at a dash reads badly: take the character before it too.
    if (tail.startsWith('-') && length < id.length) tail = id.slice(-length - 1);
    result.set(id, tail);
  }
  return result;
}

/**
 * The session of `dir` that `value` names: the full id, a short id (the end of an id), or a
 * unique prefix of an id.
 *
 * @throws InvalidSessionIdError, SessionNotFoundError (as `resolveSessionId` of @panto/core)
 * @throws AmbiguousSessionIdError when it names several sessions
 */
export async function resolveSession(dir: string, value: string): Promise<SessionInfo> {
  const wanted = sessionQuery(value);
  let ids: string[] = [];
  try {
    ids = (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).map((name) => name.slice(0, -'.jsonl'.length));
  } catch {
    // The core resolver says what is wrong with the folder.
  }
  const matches = wanted === '' || ids.includes(wanted) ? [] : ids.filter((id) => namesId(id, wanted));
  if (matches.length > 1) throw new AmbiguousSessionIdError(value, matches.sort());
  // One match: resolve it by its full id; none: the core resolver checks the value and says why.
  return resolveSessionId(dir, matches[0] ?? value);
}

/** What `-r` was given, as an id or part of one: a file name's `.jsonl` taken off. */
export function sessionQuery(value: string): string {
  return value.endsWith('.jsonl') ? value.slice(0, -'.jsonl'.length) : value;
}

/** Whether `wanted` (not empty) names the id `id` (a session's, a prompt's): a prefix of it, or its end (a short id). */
export function namesId(id: string, wanted: string): boolean {
  return id.startsWith(wanted) || id.endsWith(wanted);
}
