/** S3 objects in bulk: listing everything under a prefix, and deleting by key or by prefix. */
import type { _Object as S3Object, S3Client } from '@aws-sdk/client-s3';
import { s3SDK } from './s3-sdk.js';
import { ObjectsNotDeletedError, type ObjectNotDeleted } from '../errors.js';

/** DeleteObjects takes at most 1,000 keys. */
const DELETE_BATCH = 1000;
/** Requests for the keys S3 failed to delete and asks to retry, the first included. */
const DELETE_ATTEMPTS = 4;
/** Per-key codes S3 asks to retry. */
const TRANSIENT_CODES = new Set(['InternalError', 'SlowDown', 'ServiceUnavailable', 'RequestTimeout']);

/** Deletes the given objects, up to 1,000 per request and bucket. Missing objects are no error. */
export async function deleteObjects(client: S3Client, objects: ReadonlyArray<{ bucket: string; key: string }>): Promise<void> {
  const byBucket = new Map<string, string[]>();
  for (const { bucket, key } of objects) {
    const keys = byBucket.get(bucket) ?? [];
    keys.push(key);
    byBucket.set(bucket, keys);
  }
  for (const [bucket, keys] of byBucket) {
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      await deleteKeys(client, bucket, keys.slice(start, start + DELETE_BATCH));
    }
  }
}

/**
 * Deletes every object under `prefix` (which should end in `/`, or it also matches longer
 * names) but those in `keep`, page by page. Objects written after a page was listed are not seen.
 */
export async function deletePrefix(client: S3Client, bucket: string, prefix: string, keep: ReadonlySet<string> = new Set()): Promise<void> {
  for await (const objects of listObjectPages(client, bucket, prefix)) {
    const keys = objects.flatMap((object) => (object.Key === undefined || keep.has(object.Key) ? [] : [object.Key]));
    if (keys.length > 0) await deleteKeys(client, bucket, keys);
  }
}

/** The objects under `prefix`, a ListObjectsV2 page at a time; the next page is asked for once the caller is done with this one. */
export async function* listObjectPages(client: S3Client, bucket: string, prefix: string): AsyncGenerator<S3Object[]> {
  const { ListObjectsV2Command } = await s3SDK();
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        ...(token === undefined ? {} : { ContinuationToken: token }),
      }),
    );
    yield page.Contents ?? [];
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
}

/**
 * One DeleteObjects of at most 1,000 keys. It answers 200 even when it deleted nothing: the
 * per-key failures are in `Errors`. Those S3 asks to retry are sent again, with backoff; what
 * is left is an `ObjectsNotDeletedError`.
 */
async function deleteKeys(client: S3Client, bucket: string, keys: readonly string[]): Promise<void> {
  const { DeleteObjectsCommand } = await s3SDK();
  let pending = keys;
  for (let attempt = 1; ; attempt++) {
    const output = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: pending.map((Key) => ({ Key })), Quiet: true } }));
    const failures: ObjectNotDeleted[] = (output.Errors ?? []).map((error) => ({
      key: error.Key ?? '?',
      code: error.Code ?? 'unknown',
      message: error.Message ?? '',
    }));
    if (failures.length === 0) return;
    const transient = failures.every((failure) => TRANSIENT_CODES.has(failure.code));
    if (!transient || attempt >= DELETE_ATTEMPTS) throw new ObjectsNotDeletedError(bucket, failures, transient);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 100 * 2 ** attempt));
    pending = failures.map((failure) => failure.key);
  }
}
