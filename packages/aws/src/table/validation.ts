/**
 * What may go into a key or a META item: session ids, owners and TTLs are checked here before
 * any request is made.
 */
import { isValidId } from '@panto/core/store-kit';

/**
 * Whether `id` can name a session: the id rule of @panto/core (`isValidId`). Everything else
 * (path separators, `#`, control characters, whitespace) is refused before it reaches a key
 * or an S3 path.
 */
export function isValidSessionId(id: unknown): id is string {
  return isValidId(id);
}

/** Longest owner (a JWT `sub`, say) a key holds. */
export const MAX_OWNER_LENGTH = 256;

/** Whether `owner` can own sessions: 1–256 characters without control characters (the one rule; tokens' `sub` is held to it). */
export function isValidOwner(owner: unknown): owner is string {
  return typeof owner === 'string' && owner !== '' && owner.length <= MAX_OWNER_LENGTH && !/[\u0000-\u001f\u007f]/.test(owner);
}

/** Refuses an owner that is empty, over-long or holds control characters (a programmer error). */
export function assertValidOwner(owner: unknown): asserts owner is string {
  if (!isValidOwner(owner)) throw new RangeError(`owner must be 1–${MAX_OWNER_LENGTH} characters without control characters`);
}

/** Refuses a session TTL that is not a positive whole number of seconds (absent is fine: never expires). */
export function assertValidTtl(ttlSeconds: number | undefined): void {
  if (ttlSeconds !== undefined && !(Number.isInteger(ttlSeconds) && ttlSeconds > 0)) {
    throw new RangeError('ttlSeconds must be a positive integer');
  }
}
