/**
 * A session's whole partition, read for what removing its items needs: every item's key, the
 * offloaded texts they point at, and whose META is and whether it is a tombstone. Deleting,
 * archiving and restoring a session read it.
 */
import { QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ownershipOf, type MetaOwnership } from '../meta/visibility.js';
import { ATTR } from '../table/attributes.js';
import { namesFor, QUERY_SESSION } from '../table/expressions.js';
import { META_SK, sessionPk } from '../table/keys.js';

/** A session's partition as deletion (and archiving, and restoring) needs it. */
export interface Partition {
  /** Its META item: whose, and whether it is a tombstone; null when there is none. */
  meta: MetaOwnership | null;
  /** The keys of every other item (the entry items). */
  keys: Array<Record<string, AttributeValue>>;
  /** The offloaded texts those items point at. */
  refs: Array<{ bucket: string; key: string }>;
}

const PARTITION_PROJECTION = `#${ATTR.pk}, #${ATTR.sk}, #${ATTR.linesBucket}, #${ATTR.linesRef}, #${ATTR.owner}, #${ATTR.deletedAt}`;

/** Every item of the session's partition, keys, owner, tombstone mark and offload pointers only (paginated, consistent). */
export async function readPartition(client: DynamoDBClient, tableName: string, sessionId: string): Promise<Partition> {
  const partition: Partition = { meta: null, keys: [], refs: [] };
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: QUERY_SESSION,
        ProjectionExpression: PARTITION_PROJECTION,
        ExpressionAttributeNames: namesFor(QUERY_SESSION, PARTITION_PROJECTION),
        ExpressionAttributeValues: { ':pk': { S: sessionPk(sessionId) } },
        ConsistentRead: true,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    for (const item of page.Items ?? []) {
      if (item[ATTR.sk]?.S === META_SK) {
        partition.meta = ownershipOf(item);
        continue;
      }
      partition.keys.push({ [ATTR.pk]: item[ATTR.pk]!, [ATTR.sk]: item[ATTR.sk]! });
      const bucket = item[ATTR.linesBucket]?.S;
      const key = item[ATTR.linesRef]?.S;
      if (bucket !== undefined && key !== undefined) partition.refs.push({ bucket, key });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return partition;
}
