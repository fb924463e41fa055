/**
 * The conditional UpdateItem every change of a session's META item shares — taking its turn
 * lease, asking the turn to stop, renaming it or setting its model: one write, conditioned,
 * answering META as it left it; a failed condition handed back with the item as it was, for the
 * caller to name (the owner's session busy, not running, not found), and any other failure
 * rethrown untouched.
 */
import { UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { namesFor } from '../table/expressions.js';
import { metaKey } from '../table/keys.js';
import { conditionFailedItem, isConditionalCheckFailed, updatedItem } from '../table/sdk-errors.js';
import { decodeMeta, metaSource, type MetaRecord } from './meta-item.js';

export interface MetaUpdate {
  client: DynamoDBClient;
  tableName: string;
  sessionId: string;
  /** The update and condition expressions (named constants of table/expressions.ts) and their values. */
  update: string;
  condition: string;
  values: Record<string, AttributeValue>;
  /**
   * The error a failed condition is: called with META as it was (undefined when there was
   * none) and the SDK's error, to carry as the cause. Must not throw.
   */
  refused(old: Record<string, AttributeValue> | undefined, cause: unknown): Error;
}

/**
 * Runs the update; resolves with META as it left it.
 *
 * @example
 * const meta = await updateMeta({ client, tableName, sessionId, update, condition, values, refused: (_, cause) => new SessionNotFoundError(sessionId, { cause }) });
 */
export async function updateMeta({ client, tableName, sessionId, update, condition, values, refused }: MetaUpdate): Promise<MetaRecord> {
  let attributes: Record<string, AttributeValue> | undefined;
  try {
    ({ Attributes: attributes } = await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: namesFor(update, condition),
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    throw refused(conditionFailedItem(error), error);
  }
  return decodeMeta(updatedItem(attributes), metaSource(tableName, sessionId));
}
