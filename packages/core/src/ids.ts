import { v7 as uuidv7 } from 'uuid';

/** Makes ids for sessions and entries. Inject a fixed one where output must be deterministic. */
export type IdGenerator = () => string;
/** Tells the time. Inject a frozen one where output must be deterministic. */
export type Clock = () => Date;

/** UUIDv7: time-ordered, so file names and keys sort by creation. */
export const newId: IdGenerator = () => uuidv7();
export const systemClock: Clock = () => new Date();

const MAX_ID_LENGTH = 128;
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** What {@link isValidId} accepts, in words, for error messages. */
export const ID_RULE = '1–128 characters of A–Z a–z 0–9 . _ : -, starting with a letter or digit, without ".."';

/**
 * Whether `value` can be a session or entry id: 1–128 characters of `A–Z a–z 0–9 . _ : -`,
 * starting with a letter or digit, without `..`. Everything else (path separators, `#`,
 * whitespace, control characters) is refused before it reaches a file name, a key or a URL.
 * Every id panto makes (UUIDv7) passes.
 */
export function isValidId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_ID_LENGTH && ID_PATTERN.test(value) && !value.includes('..');
}
