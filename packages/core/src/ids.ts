import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Makes ids for sessions and entries. Inject a fixed one where output must be deterministic. */
export type IdGenerator = () => string;
/** Tells the time. Inject a frozen one where output must be deterministic. */
export type Clock = () => Date;

/** Random bytes for 256 ids, drawn at once. */
const pool = new Uint8Array(16 * 256);
let drawn = pool.length;
/** The millisecond and counter of the last id (RFC 9562's method 1, as `uuid` keeps them). */
const last = { msecs: Number.NEGATIVE_INFINITY, seq: 0 };

/**
 * UUIDv7: time-ordered, so file names and keys sort by creation — also within a millisecond,
 * where a counter seeded from random bits goes up by one. `uuid` makes them; the random bytes
 * come from a pool refilled with one `randomFillSync` per 256 ids, as Node's own `randomUUID`
 * does: `uuid`'s default draws each id's 16 bytes through WebCrypto, 20 times the cost of
 * the rest of the id on Node 20. An id given its bytes skips `uuid`'s own counter, so the
 * counter is kept here, by its rules.
 */
export const newId: IdGenerator = () => {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const random = pool.subarray(drawn, drawn + 16);
  drawn += 16;
  const now = Date.now();
  if (now > last.msecs) {
    last.msecs = now;
    last.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    last.seq = (last.seq + 1) | 0;
    // The counter ran over: the id takes the next millisecond, as `uuid` does.
    if (last.seq === 0) last.msecs++;
  }
  return uuidv7({ random, msecs: last.msecs, seq: last.seq });
};
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
