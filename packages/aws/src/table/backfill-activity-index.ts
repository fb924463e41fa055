/** The one-time migration of a table made before the `byActivity` index existed. */
import { ScanCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { ATTR } from './attributes.js';
import type { TableOptions } from './create-table.js';
import { ACTIVITY_BACKFILL_CONDITION, ACTIVITY_BACKFILL_FILTER, ACTIVITY_BACKFILL_UPDATE, namesFor } from './expressions.js';
import { activityPk, activitySk, META_SK, metaKey, SESSION_PK_PREFIX } from './keys.js';
import { isConditionalCheckFailed } from './sdk-errors.js';

/**
 * Puts the sessions of a table made before the `byActivity` index existed into it, keyed by
 * their last write, so the archive sweeper finds the idle ones too (a session that is
 * written to joins the index with that append anyway). A one-time migration, and the one
 * place that scans the table: `createTable` runs it when it adds the index; on AWS, run it
 * once after deploying the index. Idempotent: each META item is updated only while it is
 * still outside the index. Returns how many it indexed.
 *
 * @example
 * await backfillActivityIndex({ client: new DynamoDBClient({}), tableName: 'panto-sessions' });
 */
export async function backfillActivityIndex({ client, tableName }: TableOptions): Promise<number> {
  let indexed = 0;
  let startKey: Record<string, AttributeValue> | undefined;
  const projection = `#${ATTR.pk}, #${ATTR.updatedAt}`;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: ACTIVITY_BACKFILL_FILTER,
        ProjectionExpression: projection,
        ExpressionAttributeNames: namesFor(ACTIVITY_BACKFILL_FILTER, projection),
        ExpressionAttributeValues: { ':meta_sk': { S: META_SK } },
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    for (const item of page.Items ?? []) {
      const pk = item[ATTR.pk]?.S;
      const updatedAt = item[ATTR.updatedAt]?.S;
      if (pk === undefined || updatedAt === undefined || !pk.startsWith(SESSION_PK_PREFIX)) continue;
      const sessionId = pk.slice(SESSION_PK_PREFIX.length);
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: metaKey(sessionId),
            UpdateExpression: ACTIVITY_BACKFILL_UPDATE,
            ConditionExpression: ACTIVITY_BACKFILL_CONDITION,
            ExpressionAttributeNames: namesFor(ACTIVITY_BACKFILL_UPDATE, ACTIVITY_BACKFILL_CONDITION),
            ExpressionAttributeValues: {
              ':gsi2pk': { S: activityPk(sessionId) },
              ':gsi2sk': { S: activitySk(updatedAt, sessionId) },
            },
          }),
        );
        indexed++;
      } catch (error) {
        // Appended (and so indexed), archived or deleted since the page was read.
        if (!isConditionalCheckFailed(error)) throw error;
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return indexed;
}
