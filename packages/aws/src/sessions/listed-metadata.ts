/**
 * What a session list shows of each session, from its `byOwner` index item: the attributes
 * the index projects (`BY_OWNER_PROJECTION`), with the log's count and head as of the last
 * write that moved `updated_at` (`listed_count`, `listed_head`; a running turn's prompt is
 * not counted until the turn's last write). An index item without them — a META no write has
 * touched since they existed — is read from the table instead: one BatchGetItem for a page's
 * worth.
 */
import { BatchGetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { decodeListedMetadata, decodeMeta, type SessionMetadata } from '../meta/meta-item.js';
import { ATTR } from '../table/attributes.js';
import { itemSource, META_SK, metaKey, SESSION_PK_PREFIX } from '../table/keys.js';

type Item = Record<string, AttributeValue>;

/** BatchGetItem reads at most this many keys. */
const BATCH_GET_LIMIT = 100;

/** The list's metadata of a `byOwner` index item; null when the item predates `listed_count` (read META then). */
export function listedMetadata(item: Item, source: string): SessionMetadata | null {
  if (item[ATTR.header] !== undefined) return decodeMeta(item, source).metadata; // an index projecting every attribute
  return item[ATTR.listedCount] === undefined ? null : decodeListedMetadata(item, source);
}

/**
 * Each index item with its metadata, in order: from the item itself, or — for those that
 * predate `listed_count` — from their META items, read in batches (unprocessed keys retried).
 * A META gone since the index was read (a delete) drops out of the list.
 */
export async function listedSessions(
  client: DynamoDBClient,
  tableName: string,
  items: readonly Item[],
): Promise<Array<{ item: Item; metadata: SessionMetadata }>> {
  const source = (item: Item) => itemSource(tableName, item[ATTR.pk]?.S ?? '?', META_SK);
  const listed = items.map((item) => listedMetadata(item, source(item)));
  const unread = items.filter((_, i) => listed[i] === null).map((item) => item[ATTR.pk]?.S ?? '');
  const read = new Map<string, SessionMetadata>();
  for (let start = 0; start < unread.length; start += BATCH_GET_LIMIT) {
    let keys: Item[] = unread.slice(start, start + BATCH_GET_LIMIT).map((pk) => metaKey(pk.slice(SESSION_PK_PREFIX.length)));
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      const answer = await client.send(new BatchGetItemCommand({ RequestItems: { [tableName]: { Keys: keys } } }));
      for (const item of answer.Responses?.[tableName] ?? []) {
        if (item[ATTR.deletedAt] === undefined) read.set(item[ATTR.pk]?.S ?? '', decodeMeta(item, source(item)).metadata);
      }
      keys = answer.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return items.flatMap((item, i) => {
    const metadata = listed[i] ?? read.get(item[ATTR.pk]?.S ?? '');
    return metadata === undefined ? [] : [{ item, metadata }];
  });
}
