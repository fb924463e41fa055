/**
 * Export: a session's JSONL, streamed from DynamoDB page by page into a multipart upload,
 * and a short-lived presigned URL to fetch it.
 */
import { GetItemCommand, QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SessionCorruptError, SessionNotFoundError } from '@panto/core';
import { decodeStoredItem } from './entry-items.js';
import { namesFor, QUERY_ENTRIES } from './expressions.js';
import { decodeMeta, isVisibleTo, type MetaRecord } from './metadata.js';
import { MIN_PART_SIZE, MultipartWriter } from './multipart.js';
import { JSONL_CONTENT_TYPE, streamOffload } from './offload.js';
import { itemSource } from './read.js';
import { assertValidOwner, ATTR, ENTRY_SK_PREFIX, entrySk, isValidSessionId, META_SK, metaKey, sessionPk } from './table.js';

/** Default lifetime of the presigned download URL: 15 minutes. */
export const DEFAULT_EXPORT_URL_SECONDS = 15 * 60;
/** SigV4 presigned URLs live at most 7 days. */
const MAX_EXPORT_URL_SECONDS = 7 * 24 * 60 * 60;

export interface ExportSessionOptions {
  dynamo: DynamoDBClient;
  tableName: string;
  /** The client for the export bucket; it also reads the session's offloaded texts. */
  s3: S3Client;
  bucket: string;
  owner: string;
  sessionId: string;
  /** Lifetime of the download URL in seconds (default 900, at most 7 days). */
  expiresIn?: number;
  /** Tells the time for the object key and the URL's signature (default: the system clock). */
  now?: () => Date;
}

export interface SessionExport {
  bucket: string;
  key: string;
  /** A presigned GET URL for the object, valid for `expiresIn` seconds. */
  url: string;
  bytes: number;
  entries: number;
}

/**
 * Where a session's exports go: `exports/<sessionId>/`. Keyed by the session alone (ids are
 * unique in the table), so whatever deletes a session — `deleteSession`, or the TTL cleanup,
 * which learns only the session id from the table's keys-only stream — finds its exports.
 */
export function exportPrefix(sessionId: string): string {
  return `exports/${sessionId}/`;
}

/** `exports/<sessionId>/<UTC timestamp>.jsonl`. */
export function exportKey(sessionId: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '');
  return `${exportPrefix(sessionId)}${stamp}.jsonl`;
}

/** A presigned GET URL for an exported object. */
export async function presignExport(
  s3: S3Client,
  location: { bucket: string; key: string },
  expiresIn: number,
  signingDate?: Date,
): Promise<string> {
  return getSignedUrl(s3, new GetObjectCommand({ Bucket: location.bucket, Key: location.key }), {
    expiresIn,
    ...(signingDate === undefined ? {} : { signingDate }),
  });
}

/**
 * Writes a session of `owner` to S3 as JSONL — byte for byte what `FSJSONLStore` holds for
 * the same batches: the header line, then every entry line — streamed page by page into a
 * multipart upload (`application/x-ndjson`, SSE-S3; a single PutObject under 5 MiB), and
 * returns where it is with a presigned URL. Memory stays flat whatever the session's size;
 * a failed export aborts its multipart upload. The export holds the
 * entries committed when it started; appends made meanwhile are left out whole. A session
 * deleted while its export ran loses the export too: the object is deleted again (or the
 * upload aborted, when the delete took the items before they were read) and the call
 * rejects with `SessionNotFoundError`.
 *
 * @example
 * const { url } = await exportSession({ dynamo, tableName, s3, bucket, owner, sessionId });
 */
export async function exportSession(options: ExportSessionOptions): Promise<SessionExport> {
  const { dynamo, tableName, s3, bucket, owner, sessionId } = options;
  assertValidOwner(owner);
  const expiresIn = options.expiresIn ?? DEFAULT_EXPORT_URL_SECONDS;
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPORT_URL_SECONDS) {
    throw new RangeError(`expiresIn must be an integer from 1 to ${MAX_EXPORT_URL_SECONDS} seconds`);
  }
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  const now = (options.now ?? (() => new Date()))();
  const meta = await visibleMeta(dynamo, tableName, owner, sessionId, now);

  const key = exportKey(sessionId, now);
  const entries = meta.metadata.entryCount;
  // Two 5 MiB part buffers, reused: memory stays flat whatever the session's size.
  const writer = new MultipartWriter(s3, { Bucket: bucket, Key: key, ContentType: JSONL_CONTENT_TYPE, ServerSideEncryption: 'AES256' }, MIN_PART_SIZE);
  try {
    for await (const chunk of sessionLines({ dynamo, s3, tableName, sessionId, header: meta.header, entries })) await writer.write(chunk);
    await writer.end();
  } catch (error) {
    await writer.abort().catch(() => undefined);
    // A delete that began after META was read removes the items (and offloaded texts) this
    // export is still reading: what looks like a corrupt or short session is a deleted one.
    if (!(error instanceof SessionNotFoundError) && (await isGone(dynamo, tableName, owner, sessionId, now))) {
      throw new SessionNotFoundError(sessionId, { cause: error });
    }
    throw error;
  }
  // A delete that began during the upload listed the session's exports before this one
  // existed: look again, and take the object back if the session is gone.
  try {
    await visibleMeta(dynamo, tableName, owner, sessionId, now);
  } catch (error) {
    if (error instanceof SessionNotFoundError) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    throw error;
  }
  const bytes = writer.bytes;
  const url = await presignExport(s3, { bucket, key }, expiresIn, now);
  return { bucket, key, url, bytes, entries };
}

/** The session's META, consistently read, if `owner` may see it; else `SessionNotFoundError`. */
async function visibleMeta(dynamo: DynamoDBClient, tableName: string, owner: string, sessionId: string, now: Date): Promise<MetaRecord> {
  const { Item: item } = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: metaKey(sessionId), ConsistentRead: true }));
  const meta = item === undefined ? null : decodeMeta(item, itemSource(tableName, sessionId, META_SK));
  if (!isVisibleTo(meta, owner, now.getTime())) throw new SessionNotFoundError(sessionId);
  return meta;
}

/** Whether the session is gone for `owner` now (deleted, or being deleted); false when that cannot be told. */
async function isGone(dynamo: DynamoDBClient, tableName: string, owner: string, sessionId: string, now: Date): Promise<boolean> {
  return visibleMeta(dynamo, tableName, owner, sessionId, now).then(
    () => false,
    (error: unknown) => error instanceof SessionNotFoundError,
  );
}

/**
 * The session's JSONL: `header`, then the lines of its first `entries` entries, read one
 * Query page at a time (offloaded texts streamed from S3 in turn).
 */
async function* sessionLines(options: {
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
