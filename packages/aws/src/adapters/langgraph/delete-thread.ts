/** Deleting a LangGraph thread: every item of its partition and every S3 object under its folder. */
import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { offloadPrefix } from '../../entries/offload.js';
import { OffloadRequiredError } from '../../errors.js';
import { deleteObjects, deletePrefix } from '../../s3/s3-objects.js';
import { batchWriteAll } from '../../table/batch-write.js';
import { namesFor } from '../../table/expressions.js';
import { ADAPTER_ATTR } from '../shared/adapter-attributes.js';
import { PARTITION } from '../shared/adapter-expressions.js';
import { threadObjectId, threadPk } from './checkpoint-keys.js';
import type { SaverContext } from './saver-context.js';

/**
 * Deletes the thread's items — heads, checkpoints, channel values, pending writes, in every
 * namespace — after their offloaded texts (a delete cut short finds them again), then
 * whatever else is under the thread's S3 folder (texts of puts that lost a race). Idempotent.
 */
export async function deleteThreadItems(context: SaverContext, threadId: string): Promise<void> {
  const projection = `#${ADAPTER_ATTR.pk}, #${ADAPTER_ATTR.sk}, #${ADAPTER_ATTR.linesBucket}, #${ADAPTER_ATTR.linesRef}`;
  const keys: Array<Record<string, AttributeValue>> = [];
  const refs: Array<{ bucket: string; key: string }> = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await context.client.send(
      new QueryCommand({
        TableName: context.tableName,
        KeyConditionExpression: PARTITION,
        ProjectionExpression: projection,
        ExpressionAttributeNames: namesFor(PARTITION, projection),
        ExpressionAttributeValues: { ':pk': { S: threadPk(threadId) } },
        ConsistentRead: true,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    for (const item of page.Items ?? []) {
      keys.push({ [ADAPTER_ATTR.pk]: item[ADAPTER_ATTR.pk]!, [ADAPTER_ATTR.sk]: item[ADAPTER_ATTR.sk]! });
      const bucket = item[ADAPTER_ATTR.linesBucket]?.S;
      const key = item[ADAPTER_ATTR.linesRef]?.S;
      if (bucket !== undefined && key !== undefined) refs.push({ bucket, key });
    }
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  if (refs.length > 0 && context.s3 === undefined) throw new OffloadRequiredError(`langgraph:${threadId}`, 0, 'values being deleted are offloaded to S3');
  if (context.s3 !== undefined) {
    await deleteObjects(context.s3.client, refs);
    await deletePrefix(context.s3.client, context.s3.bucket, offloadPrefix(context.s3, threadObjectId(threadId)));
  }
  await batchWriteAll(
    context.client,
    context.tableName,
    keys.map((Key) => ({ DeleteRequest: { Key } })),
  );
}
