/**
 * Entry text too big for DynamoDB goes to S3 under a content-addressed key, written before
 * the transaction that points at it; reads fetch it back and check its SHA-256.
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { SessionCorruptError } from '@panto/core/store-kit';
import { s3SDK } from '../s3/s3-sdk.js';
import type { OffloadRef } from './entry-item.js';

/** Where a store puts offloaded entry text. */
export interface S3Location {
  client: S3Client;
  bucket: string;
  /** Prepended to every key the store writes, e.g. `panto/`. */
  prefix?: string;
}

export const JSONL_CONTENT_TYPE = 'application/x-ndjson';

/** The key prefix of one session's offloaded text. */
export function offloadPrefix(location: Pick<S3Location, 'prefix'>, sessionId: string): string {
  return `${location.prefix ?? ''}offload/${sessionId}/`;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Writes `text` to `<prefix>offload/<sessionId>/<sha256>.jsonl` (idempotent: same text, same
 * key) — or, with a `tag`, to `<sha256>.<tag>.jsonl`: a writer whose lines may already be
 * another item's (an import or fork copies lines, ids and all) tags its objects so that
 * removing them again can never remove an object some other item points at.
 */
export async function putOffload(location: S3Location, sessionId: string, text: string, tag?: string): Promise<OffloadRef> {
  const body = Buffer.from(text, 'utf8');
  const sha256 = sha256Hex(body);
  const key = `${offloadPrefix(location, sessionId)}${sha256}${tag === undefined ? '' : `.${tag}`}.jsonl`;
  const { PutObjectCommand } = await s3SDK();
  await location.client.send(
    new PutObjectCommand({
      Bucket: location.bucket,
      Key: key,
      Body: body,
      ContentType: JSONL_CONTENT_TYPE,
      ServerSideEncryption: 'AES256',
    }),
  );
  return { bucket: location.bucket, key, bytes: body.length, sha256 };
}

function mismatch(ref: OffloadRef, source: string): SessionCorruptError {
  return new SessionCorruptError(source, 1, `offloaded text s3://${ref.bucket}/${ref.key} does not match its SHA-256`);
}

/** Reads an offloaded text back whole, refusing it (SessionCorruptError) if its bytes changed. */
export async function getOffload(client: S3Client, ref: OffloadRef, source: string): Promise<string> {
  const { GetObjectCommand } = await s3SDK();
  const response = await client.send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
  const bytes = (await response.Body?.transformToByteArray()) ?? new Uint8Array();
  if (bytes.length !== ref.bytes || sha256Hex(bytes) !== ref.sha256) throw mismatch(ref, source);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * Streams an offloaded text. Its SHA-256 is checked as the last chunk goes by, so a consumer
 * (an export's upload) fails — and is aborted — rather than completing with changed bytes.
 */
export async function* streamOffload(client: S3Client, ref: OffloadRef, source: string): AsyncGenerator<Uint8Array> {
  const { GetObjectCommand } = await s3SDK();
  const response = await client.send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of (response.Body ?? []) as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
    if (bytes > ref.bytes) throw mismatch(ref, source);
    yield chunk;
  }
  if (bytes !== ref.bytes || hash.digest('hex') !== ref.sha256) throw mismatch(ref, source);
}
