/**
 * The attribute names of the SDK adapters' items (docs/aws.md, "The SDK adapters' items"):
 * those that mean what DynamoStore's do are the same names (`ATTR`); the rest are the adapters' own.
 */
import { ATTR } from '../../table/attributes.js';

export const ADAPTER_ATTR = {
  pk: ATTR.pk,
  sk: ATTR.sk,
  // a log's head item
  /** The index the next entry gets: entries ever appended, less those popped. */
  entryCount: ATTR.entryCount,
  /** The index of the log's first live entry: a clear moves it to `entry_count`. */
  liveFrom: 'live_from',
  createdAt: ATTR.createdAt,
  updatedAt: ATTR.updatedAt,
  /** Epoch seconds: DynamoDB's TTL attribute (`createTable` turns TTL on for it). */
  expiresAt: ATTR.expiresAt,
  /** SHA-256 of the last batch appended, when every entry of it carried an id: a resent batch is recognised. */
  lastBatch: 'last_batch',
  /** The `byOwner` index keys, on what a listing reads (a Claude session's main head, a LangGraph thread's heads). */
  gsi1pk: ATTR.gsi1pk,
  gsi1sk: ATTR.gsi1sk,
  // entry items: the attributes of DynamoStore's entry items
  lines: ATTR.lines,
  count: ATTR.count,
  batchEnd: ATTR.batchEnd,
  linesRef: ATTR.linesRef,
  linesBucket: ATTR.linesBucket,
  // a LangGraph namespace's head
  /** The id of the namespace's newest checkpoint on the line runs continue. */
  head: ATTR.head,
} as const;
