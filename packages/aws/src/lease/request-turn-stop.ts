/** Asking the turn that holds a session's lease to stop (see session-lease.ts). */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core/store-kit';
import { TurnNotRunningError } from '../errors.js';
import type { HeldLease } from '../meta/meta-item.js';
import { updateMeta } from '../meta/update-meta.js';
import { isOwnersItem } from '../meta/visibility.js';
import { STOP_REQUEST_CONDITION, STOP_REQUEST_UPDATE } from '../table/expressions.js';
import { assertValidOwner, isValidSessionId } from '../table/validation.js';

export interface RequestTurnStopOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  /** Epoch milliseconds now (default `Date.now`): a lease that expired by then holds no turn. */
  now?: () => number;
}

/**
 * Asks the turn that holds the session's lease to stop: one conditional UpdateItem that
 * marks META with that lease's id. The holder reads it back at its next renewal and stops
 * at its next chunk or tool boundary, keeping what it committed. Resolves with the lease as
 * it now stands; `TurnNotRunningError` when no live lease is held, `SessionNotFoundError`
 * for a missing session, another owner's, or one being deleted. Asking twice is harmless.
 *
 * @example
 * await requestTurnStop({ client, tableName, owner, sessionId });
 */
export async function requestTurnStop(options: RequestTurnStopOptions): Promise<HeldLease> {
  const { client, tableName, owner, sessionId } = options;
  assertValidOwner(owner);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  const now = (options.now ?? Date.now)();
  const { lease } = await updateMeta({
    client,
    tableName,
    sessionId,
    update: STOP_REQUEST_UPDATE,
    condition: STOP_REQUEST_CONDITION,
    values: { ':owner': { S: owner }, ':now': { N: String(now) } },
    refused: (old, cause) => (isOwnersItem(old, owner) ? new TurnNotRunningError(sessionId, { cause }) : new SessionNotFoundError(sessionId, { cause })),
  });
  if (lease === null) throw new TypeError('a stop request left META without a lease');
  return lease;
}
