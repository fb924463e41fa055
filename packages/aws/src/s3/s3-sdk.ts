/**
 * The S3 SDK, loaded by the first S3 call of the store's hot path (an offloaded entry, a
 * stored idempotent answer, listing or deleting a session's objects) rather than imported
 * statically: most requests never reach S3, and a Lambda function whose S3 client is built at
 * its first call (as the service's is) then evaluates none of the S3 client's code at a cold
 * start. Node's module cache makes every call after the first immediate.
 */
export function s3SDK(): Promise<typeof import('@aws-sdk/client-s3')> {
  return import('@aws-sdk/client-s3');
}
