/**
 * A session's JSONL, read from the table: the header line, then every entry line in log
 * order, one Query page at a time (offloaded texts streamed from S3 in turn) — what an export
 * and an archive write, byte for byte what `FSJSONLStore` holds for the same batches.
 */
import { GetItemCommand, QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SessionCorruptError, SessionNotFoundError } from '@panto/core';
import { decodeStoredItem } from '../entries/entry-item.js';
import { namesFor, QUERY_ENTRIES } from '../table/expressions.js';
import { decodeMeta, isVisibleTo, type MetaRecord } from '../meta/meta-item.js';
import { streamOffload } from '../entries/offload.js';
import { itemSource } from '../store/read-session.js';
import { ATTR, ENTRY_SK_PREFIX, entrySk, META_SK, metaKey, sessionPk } from '../table/keys.js';

/** The session's META, consistently read, or null when there is none. */
export async function readMeta(dynamo: DynamoDBClient, tableName: string, sessionId: string): Promise<MetaRecord | null> {
  const { Item: item } = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: metaKey(sessionId), ConsistentRead: true }));
  return item === undefined ? null : decodeMeta(item, itemSource(tableName, sessionId, META_SK));
}

/** The session's META, consistently read, if `owner` may see it; else `SessionNotFoundError`. */
export async function visibleMeta(dynamo: DynamoDBClient, tableName: string, owner: string, sessionId: string, now: Date): Promise<MetaRecord> {
  const meta = await readMeta(dynamo, tableName, sessionId);
  if (!isVisibleTo(meta, owner, now.getTime())) throw new SessionNotFoundError(sessionId);
  return meta;
}

/**
 * The session's JSONL: `header`, then the lines of its first `entries` entries. A gap, an
 * item out of place or fewer entries than `entries` is a `SessionCorruptError` (or, for an
 * offloaded text that is gone, S3's own error): a caller racing an archive reads META again.
 */
export async function* sessionLines(options: {
  dynamo: DynamoDBClient;
  s3: S3Client;
  tableName: string;
  sessionId: string;
  header: string;
  entries: number;
}): AsyncGenerator<string | Uint8Array> {
  const { dynamo, s3, tableName, sessionId, entries } = options;
  yield options.header;
  let written = 0;
  let startKey: Record<string, AttributeValue> | undefined;
  while (written < entries) {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: QUERY_ENTRIES,
        ExpressionAttributeNames: namesFor(QUERY_ENTRIES),
        ExpressionAttributeValues: { ':pk': { S: sessionPk(sessionId) }, ':entry_prefix': { S: ENTRY_SK_PREFIX } },
        ConsistentRead: true,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    for (const raw of page.Items ?? []) {
      if (written >= entries) break;
      const source = itemSource(tableName, sessionId, raw[ATTR.sk]?.S ?? '?');
      const item = decodeStoredItem(raw, source);
      if (item.index !== written) {
        throw new SessionCorruptError(source, 1, `expected entry item ${entrySk(written)} next`);
      }
      if (item.lines !== null) yield item.lines;
      else yield* streamOffload(s3, item.ref!, source);
      written += item.count;
    }
    startKey = page.LastEvaluatedKey;
    if (startKey === undefined) break;
  }
  if (written !== entries) {
    throw new SessionCorruptError(itemSource(tableName, sessionId, entrySk(written)), 1, `the session counts ${entries} entries, its items hold ${written}`);
  }
}
