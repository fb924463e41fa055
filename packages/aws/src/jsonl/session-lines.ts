/**
 * A session's JSONL, read from the table: the header line, then every entry line in log
 * order, one Query page at a time (offloaded texts streamed from S3 in turn) — and written to
 * a new object, which is what an export and an archive are: byte for byte what
 * `FSJSONLStore` holds for the same batches.
 */
import { QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SessionCorruptError } from '@panto/core/store-kit';
import { decodeStoredItem } from '../entries/entry-item.js';
import { JSONL_CONTENT_TYPE, streamOffload } from '../entries/offload.js';
import { MIN_PART_SIZE, MultipartWriter } from '../s3/multipart-writer.js';
import { ATTR } from '../table/attributes.js';
import { namesFor, QUERY_ENTRIES } from '../table/expressions.js';
import { ENTRY_SK_PREFIX, entrySk, itemSource, sessionPk } from '../table/keys.js';

export interface SessionLinesOptions {
  dynamo: DynamoDBClient;
  /** Reads the offloaded texts (and, for {@link uploadSessionLines}, writes the object). */
  s3: S3Client;
  tableName: string;
  sessionId: string;
  /** The session's header line, as META holds it. */
  header: string;
  /** How many entries META counts: the JSONL holds exactly these. */
  entries: number;
}

/** A full garbage collection to run as a long upload goes: see {@link exposedGarbageCollector}. */
export interface GarbageCollection {
  /**
   * Called each time a 5 MB part has been handed to S3 and the part before it has uploaded. A
   * full collection there keeps a long export's or archive's peak memory nearer a short
   * one's: without it V8 lets the garbage of the pages read so far (response strings, items,
   * request buffers) pile up until its heap limit grows.
   */
  collectGarbage?: () => void;
}

/**
 * The process's full garbage collection when Node exposes it (`--expose-gc`, which the
 * deployed functions set in `NODE_OPTIONS`), else undefined. A call takes milliseconds on an
 * export's heap; a 75 MB export makes about 15, and its time did not change measurably.
 */
export function exposedGarbageCollector(): (() => void) | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? () => (gc as () => void)() : undefined;
}

/**
 * The session's JSONL: `header`, then the lines of its first `entries` entries. A gap, an
 * item out of place or fewer entries than `entries` is a `SessionCorruptError` (or, for an
 * offloaded text that is gone, S3's own error): a caller racing an archive reads META again.
 */
export async function* sessionLines(options: SessionLinesOptions): AsyncGenerator<string | Uint8Array> {
  const { dynamo, s3, tableName, sessionId, entries } = options;
  const pk = sessionPk(sessionId);
  yield options.header;
  let written = 0;
  let startKey: Record<string, AttributeValue> | undefined;
  while (written < entries) {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: QUERY_ENTRIES,
        ExpressionAttributeNames: namesFor(QUERY_ENTRIES),
        ExpressionAttributeValues: { ':pk': { S: pk }, ':entry_prefix': { S: ENTRY_SK_PREFIX } },
        ConsistentRead: true,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    for (const raw of page.Items ?? []) {
      if (written >= entries) break;
      const source = itemSource(tableName, pk, raw[ATTR.sk]?.S ?? '?');
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
    throw new SessionCorruptError(itemSource(tableName, pk, entrySk(written)), 1, `the session counts ${entries} entries, its items hold ${written}`);
  }
}

/**
 * Writes {@link sessionLines} to the object `key` of `bucket` (JSONL, SSE-S3): multipart
 * through two 5 MiB part buffers, reused, so memory stays flat whatever the session's size.
 * `onChunk` sees each chunk before it is written (an archive hashes them). A failure aborts
 * the upload and is rethrown. Resolves with the writer, ended (its `key` and `bytes`).
 */
export async function uploadSessionLines(
  options: SessionLinesOptions & { bucket: string; key: string; onChunk?: (chunk: string | Uint8Array) => void } & GarbageCollection,
): Promise<MultipartWriter> {
  const writer = new MultipartWriter(
    options.s3,
    { Bucket: options.bucket, Key: options.key, ContentType: JSONL_CONTENT_TYPE, ServerSideEncryption: 'AES256' },
    MIN_PART_SIZE,
    options.collectGarbage,
  );
  try {
    for await (const chunk of sessionLines(options)) {
      options.onChunk?.(chunk);
      await writer.write(chunk);
    }
    await writer.end();
  } catch (error) {
    // The read's own failure is what the caller must see (rethrown below); aborting the upload is best effort.
    await writer.abort().catch(() => undefined);
    throw error;
  }
  return writer;
}
