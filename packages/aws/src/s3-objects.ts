/** Deleting S3 objects in bulk: by key, and everything under a prefix. */
import { DeleteObjectsCommand, ListObjectsV2Command, type DeleteObjectsCommandOutput, type S3Client } from '@aws-sdk/client-s3';
import { PantoError } from '@panto/core';

/** DeleteObjects takes at most 1,000 keys. */
const DELETE_BATCH = 1000;

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
      const output = await client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: keys.slice(start, start + DELETE_BATCH).map((Key) => ({ Key })), Quiet: true },
        }),
      );
      assertDeleted(bucket, output);
    }
  }
}

/**
 * Deletes every object under `prefix` (which should end in `/`, or it also matches longer
 * names) but those in `keep`, page by page. Objects written after a page was listed are not seen.
 */
export async function deletePrefix(client: S3Client, bucket: string, prefix: string, keep: ReadonlySet<string> = new Set()): Promise<void> {
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token === undefined ? {} : { ContinuationToken: token }) }),
    );
    const objects = (page.Contents ?? []).flatMap((object) => (object.Key === undefined || keep.has(object.Key) ? [] : [{ Key: object.Key }]));
    if (objects.length > 0) {
      assertDeleted(bucket, await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } })));
    }
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
}

/** DeleteObjects answers 200 even when it deleted nothing: per-key failures are in `Errors`. */
function assertDeleted(bucket: string, output: DeleteObjectsCommandOutput): void {
  const errors = output.Errors ?? [];
  if (errors.length === 0) return;
  const first = errors[0]!;
  throw new PantoError(
    `S3 did not delete ${errors.length} objects of bucket ${bucket} (first: ${first.Key ?? '?'}: ${first.Code ?? 'unknown'} ${first.Message ?? ''})`.trimEnd(),
  );
}
