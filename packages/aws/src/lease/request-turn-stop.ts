/** Asking the turn that holds a session's lease to stop (see session-lease.ts). */
import { UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core/store-kit';
import { TurnNotRunningError } from '../errors.js';
import { decodeMeta, metaSource, type HeldLease } from '../meta/meta-item.js';
import { isOwnersItem } from '../meta/visibility.js';
import { namesFor, STOP_REQUEST_CONDITION, STOP_REQUEST_UPDATE } from '../table/expressions.js';
import { metaKey } from '../table/keys.js';
import { conditionFailedItem, isConditionalCheckFailed, updatedItem } from '../table/sdk-errors.js';
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
  let attributes: Record<string, AttributeValue> | undefined;
  try {
    ({ Attributes: attributes } = await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        UpdateExpression: STOP_REQUEST_UPDATE,
        ConditionExpression: STOP_REQUEST_CONDITION,
        ExpressionAttributeNames: namesFor(STOP_REQUEST_UPDATE, STOP_REQUEST_CONDITION),
        ExpressionAttributeValues: { ':owner': { S: owner }, ':now': { N: String(now) } },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    if (!isOwnersItem(conditionFailedItem(error), owner)) throw new SessionNotFoundError(sessionId, { cause: error });
    throw new TurnNotRunningError(sessionId, { cause: error });
  }
  const { lease } = decodeMeta(updatedItem(attributes), metaSource(tableName, sessionId));
  if (lease === null) throw new TypeError('a stop request left META without a lease');
  return lease;
}
