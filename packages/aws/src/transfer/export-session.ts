/**
 * Export: a session's JSONL, streamed from DynamoDB page by page into a multipart upload,
 * and a short-lived presigned URL to fetch it.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SessionNotFoundError, systemClock } from '@panto/core/store-kit';
import { ensureRestored } from '../archive/restore-session.js';
import type { S3Location } from '../entries/offload.js';
import { type GarbageCollection, uploadSessionLines } from '../jsonl/session-lines.js';
import { readMeta, type MetaRecord } from '../meta/meta-item.js';
import { visibleMeta } from '../meta/visibility.js';
import type { MultipartWriter } from '../s3/multipart-writer.js';
import { exportKey, listSessionObjects, type SessionObject } from '../s3/session-objects.js';
import { assertValidOwner, isValidSessionId } from '../table/validation.js';

/** Default lifetime of the presigned download URL: 15 minutes. */
export const DEFAULT_EXPORT_URL_SECONDS = 15 * 60;
/** SigV4 presigned URLs live at most 7 days. */
const MAX_EXPORT_URL_SECONDS = 7 * 24 * 60 * 60;

/** The lifetime of a download URL: `expiresIn` (default {@link DEFAULT_EXPORT_URL_SECONDS}), refused outside 1 s – 7 days. */
function urlLifetime(expiresIn = DEFAULT_EXPORT_URL_SECONDS): number {
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPORT_URL_SECONDS) {
    throw new RangeError(`expiresIn must be an integer from 1 to ${MAX_EXPORT_URL_SECONDS} seconds`);
  }
  return expiresIn;
}

export interface ExportSessionOptions extends GarbageCollection {
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
  /**
   * Where the store keeps offloaded texts, for restoring an archived session first (default:
   * `bucket`, as in the service).
   */
  store?: S3Location;
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
 * A presigned GET URL for an exported object. A browser that opens it saves the file as
 * `<sessionId>.jsonl` (the name `panto --export` gives it too), not as the key's last part.
 */
export async function presignExport(s3: S3Client, location: { bucket: string; key: string }, expiresIn: number, signingDate?: Date): Promise<string> {
  const disposition = `attachment; filename="${downloadName(location.key)}"`;
  return getSignedUrl(s3, new GetObjectCommand({ Bucket: location.bucket, Key: location.key, ResponseContentDisposition: disposition }), {
    expiresIn,
    ...(signingDate === undefined ? {} : { signingDate }),
  });
}

/** `exports/<sessionId>/<time>-<n>-entries.jsonl` → `<sessionId>.jsonl`; any other key, its last part. */
function downloadName(key: string): string {
  const parts = key.split('/');
  const name = parts.length === 3 && parts[0] === 'exports' && isValidSessionId(parts[1]!) ? `${parts[1]}.jsonl` : parts.at(-1)!;
  return name.replace(/["\\]/g, '_');
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
 * rejects with `SessionNotFoundError`. An archived session is restored first (and one
 * archived while its export ran is restored and exported again), so the export is the same
 * whether the session was hot or cold. The object is kept until the session is deleted: the
 * bucket's lifecycle only moves it to a cheaper storage class (see docs/aws.md).
 * Its key, `exports/<sessionId>/<time>-<entries>-entries.jsonl`, says what it holds.
 *
 * @example
 * const { url } = await exportSession({ dynamo, tableName, s3, bucket, owner, sessionId });
 */
export async function exportSession(options: ExportSessionOptions): Promise<SessionExport> {
  const { dynamo, tableName, s3, bucket, owner, sessionId } = options;
  assertValidOwner(owner);
  const expiresIn = urlLifetime(options.expiresIn);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  const now = (options.now ?? systemClock)();
  const restore = { client: dynamo, tableName, owner, sessionId, s3: options.store ?? { client: s3, bucket } };
  // An archived session is restored first: an export answers as if it had never left.
  let meta = await ensureRestored(restore, await visibleMeta(dynamo, tableName, owner, sessionId, now));

  let writer: MultipartWriter | undefined;
  for (let attempt = 0; writer === undefined; attempt++) {
    try {
      writer = await upload(options, meta, now);
    } catch (error) {
      // A sweeper may have archived it under the read (its items going): restore, once, and export again.
      const again = attempt === 0 ? await readMeta(dynamo, tableName, sessionId) : null;
      if (again?.archivedAt != null && again.deletedAt === null) {
        meta = await ensureRestored(restore, again);
        continue;
      }
      // A delete that began after META was read removes the items (and offloaded texts) this
      // export is still reading: what looks like a corrupt or short session is a deleted one.
      if (!(error instanceof SessionNotFoundError) && (await isGone(dynamo, tableName, owner, sessionId, now))) {
        throw new SessionNotFoundError(sessionId, { cause: error });
      }
      throw error;
    }
  }
  const key = writer.key;
  const entries = meta.metadata.entryCount;
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

/** Streams the session's JSONL as META describes it into a new export object; a failure aborts the upload. */
async function upload(options: ExportSessionOptions, meta: MetaRecord, now: Date): Promise<MultipartWriter> {
  const { dynamo, tableName, s3, bucket, sessionId } = options;
  const entries = meta.metadata.entryCount;
  const key = exportKey(sessionId, now, entries);
  const collect = options.collectGarbage === undefined ? {} : { collectGarbage: options.collectGarbage };
  return uploadSessionLines({ dynamo, s3, tableName, sessionId, header: meta.header, entries, bucket, key, ...collect });
}

export interface ListExportsOptions {
  dynamo: DynamoDBClient;
  tableName: string;
  s3: S3Client;
  bucket: string;
  owner: string;
  sessionId: string;
  /** Lifetime of each download URL in seconds (default 900, at most 7 days). */
  expiresIn?: number;
  now?: () => Date;
}

/** An export or archive of a session, with a fresh download URL. */
export interface ListedExport extends SessionObject {
  /** A presigned GET URL, valid for `expiresIn` seconds. */
  url: string;
}

/** Whether the session is gone for `owner` now (deleted, or being deleted); false when that cannot be told. */
async function isGone(dynamo: DynamoDBClient, tableName: string, owner: string, sessionId: string, now: Date): Promise<boolean> {
  return visibleMeta(dynamo, tableName, owner, sessionId, now).then(
    () => false,
    (error: unknown) => error instanceof SessionNotFoundError,
  );
}

/**
 * The exports and archives of a session of `owner`, newest first, each with a fresh
 * presigned URL: one consistent GetItem (the owner check; an archived session is not
 * restored for this) and a listing per prefix — no request per object, as each key names
 * its time and entry count. `SessionNotFoundError` as for `exportSession`.
 *
 * @example
 * const exports = await listExports({ dynamo, tableName, s3, bucket, owner, sessionId, expiresIn: 3600 });
 */
export async function listExports(options: ListExportsOptions): Promise<ListedExport[]> {
  const { dynamo, tableName, s3, bucket, owner, sessionId } = options;
  assertValidOwner(owner);
  const expiresIn = urlLifetime(options.expiresIn);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  const now = (options.now ?? systemClock)();
  await visibleMeta(dynamo, tableName, owner, sessionId, now);
  const objects = await listSessionObjects(s3, bucket, sessionId);
  return Promise.all(objects.map(async (object) => ({ ...object, url: await presignExport(s3, object, expiresIn, now) })));
}
