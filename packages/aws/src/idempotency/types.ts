/** The idempotency seam the HTTP layer uses: what a claim finds, and what a store does (see `DynamoIdempotencyStore`). */

/** An answer as stored: enough to send it again. */
export interface StoredResponse {
  status: number;
  /** The JSON body, as sent. */
  body: string;
}

/** What claiming a key found. */
export type IdempotencyClaim =
  /** The key is this request's now: run it, then `complete` (or `release` if it failed). */
  | { state: 'claimed'; claimId: string; pk: string }
  /** An earlier request with this key and the same fingerprint finished: answer what it answered. */
  | { state: 'completed'; response: StoredResponse }
  /** An earlier request with this key and the same fingerprint is still running. */
  | { state: 'in_progress' }
  /** The key was used for another request (another fingerprint). */
  | { state: 'mismatch' };

/** The seam the HTTP layer uses (see `DynamoIdempotencyStore`). */
export interface IdempotencyStore {
  /**
   * Claims `key` for `owner`'s request `fingerprint`, to be held at most `inProgressMs`.
   * One conditional write; a key already taken is answered from the old item it returns.
   */
  claim(request: { owner: string; key: string; fingerprint: string; inProgressMs: number }): Promise<IdempotencyClaim>;
  /** Stores the answer of a claimed request; later claims of its key get it back. */
  complete(claim: Extract<IdempotencyClaim, { state: 'claimed' }>, response: StoredResponse): Promise<void>;
  /** Frees a claimed key whose request failed before it answered, so that a retry runs it again. */
  release(claim: Extract<IdempotencyClaim, { state: 'claimed' }>): Promise<void>;
}
