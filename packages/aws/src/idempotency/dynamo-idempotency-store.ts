/**
 * Idempotency keys on the sessions table, as AWS Powertools' idempotency utility keeps them
 * (`DynamoDBPersistenceLayer`): one item per (owner, key), claimed with a conditional put
 * that returns the old item when it fails — so a retry learns everything from that one
 * request, with no read — then completed with the answer, which later retries get back.
 *
 * Item: `pk = IDEMPOTENCY#<sha256(owner, key)>`, `sk = IDEMPOTENCY`; `status`
 * (`in_progress` | `completed`), `claim_id`, `fingerprint` (what the request was),
 * `in_progress_expires_at` (ms; a claim whose request died is free again after it),
 * `expires_at` (s; the table's TTL), and the answer: `response_status` and `response_body`
 * (gzipped JSON), or `response_ref` (an S3 key under `idempotency/`) when it is too big for
 * an item. No owner in clear, no key in clear.
 */
import { createHash, randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DeleteItemCommand, PutItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { s3SDK } from '../s3/s3-sdk.js';
import { ATTR } from '../table/attributes.js';
import {
  IDEMPOTENCY_CLAIM_CONDITION,
  IDEMPOTENCY_COMPLETE_REF_UPDATE,
  IDEMPOTENCY_COMPLETE_UPDATE,
  IDEMPOTENCY_OWN_CLAIM,
  namesFor,
} from '../table/expressions.js';
import { conditionFailedItem, isConditionalCheckFailed } from '../table/sdk-errors.js';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from './types.js';

export const IDEMPOTENCY_PK_PREFIX = 'IDEMPOTENCY#';
export const IDEMPOTENCY_SK = 'IDEMPOTENCY';
/** Where answers too big for an item go; the bucket's lifecycle expires them. */
export const IDEMPOTENCY_PREFIX = 'idempotency/';
/** Gzipped answers up to this size are kept in the item (an item holds at most 400 KB). */
export const MAX_INLINE_RESPONSE_BYTES = 300 * 1024;

export interface DynamoIdempotencyStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** How long a completed key answers retries (default 24 h, as Stripe keeps them). */
  ttlSeconds?: number;
  /** Where answers too big for an item are kept (`idempotency/`); without it they are refused. */
  s3?: { client: S3Client; bucket: string };
  /** Tells the time (default: the system clock). */
  now?: () => number;
}

export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** The hash the item key holds: the owner and the key, neither in clear. */
export function idempotencyPk(owner: string, key: string): string {
  return `${IDEMPOTENCY_PK_PREFIX}${createHash('sha256').update(owner).update('\0').update(key).digest('hex')}`;
}

/**
 * @example
 * const store = new DynamoIdempotencyStore({ client, tableName, s3: { client: s3, bucket } });
 * const claim = await store.claim({ owner, key, fingerprint, inProgressMs: 35_000 });
 */
export class DynamoIdempotencyStore implements IdempotencyStore {
  readonly #options: DynamoIdempotencyStoreOptions;

  constructor(options: DynamoIdempotencyStoreOptions) {
    this.#options = options;
  }

  async claim(request: { owner: string; key: string; fingerprint: string; inProgressMs: number }): Promise<IdempotencyClaim> {
    const { client, tableName } = this.#options;
    const now = this.#now();
    const pk = idempotencyPk(request.owner, request.key);
    const claimId = randomUUID();
    try {
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: {
            [ATTR.pk]: { S: pk },
            [ATTR.sk]: { S: IDEMPOTENCY_SK },
            [ATTR.status]: { S: 'in_progress' },
            [ATTR.claimId]: { S: claimId },
            [ATTR.fingerprint]: { S: request.fingerprint },
            [ATTR.inProgressExpiresAt]: { N: String(now + request.inProgressMs) },
            [ATTR.expiresAt]: { N: String(this.#expiresAt(now)) },
          },
          ConditionExpression: IDEMPOTENCY_CLAIM_CONDITION,
          ExpressionAttributeNames: namesFor(IDEMPOTENCY_CLAIM_CONDITION),
          ExpressionAttributeValues: {
            ':now_seconds': { N: String(Math.floor(now / 1000)) },
            ':now': { N: String(now) },
            ':in_progress': { S: 'in_progress' },
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { state: 'claimed', claimId, pk };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const old = conditionFailedItem(error);
      // The condition failed, so an unexpired record is there; without it, DynamoDB did not say.
      if (old === undefined) throw error;
      if (old[ATTR.fingerprint]?.S !== request.fingerprint) return { state: 'mismatch' };
      if (old[ATTR.status]?.S !== 'completed') return { state: 'in_progress' };
      return { state: 'completed', response: await this.#response(old) };
    }
  }

  async complete(claim: Extract<IdempotencyClaim, { state: 'claimed' }>, response: StoredResponse): Promise<void> {
    const { client, tableName, s3 } = this.#options;
    const body = gzipSync(Buffer.from(response.body, 'utf8'));
    let update = IDEMPOTENCY_COMPLETE_UPDATE;
    let stored: Record<string, AttributeValue> = { ':response_body': { B: body } };
    if (body.byteLength > MAX_INLINE_RESPONSE_BYTES) {
      if (!s3) throw new RangeError(`the response is ${body.byteLength} bytes gzipped, over ${MAX_INLINE_RESPONSE_BYTES}, and there is no bucket to keep it`);
      const key = `${IDEMPOTENCY_PREFIX}${claim.pk.slice(IDEMPOTENCY_PK_PREFIX.length)}/${claim.claimId}.json.gz`;
      const { PutObjectCommand } = await s3SDK();
      await s3.client.send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: key,
          Body: body,
          ContentType: 'application/json',
          ContentEncoding: 'gzip',
          ServerSideEncryption: 'AES256',
        }),
      );
      update = IDEMPOTENCY_COMPLETE_REF_UPDATE;
      stored = { ':response_ref': { S: key } };
    }
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { [ATTR.pk]: { S: claim.pk }, [ATTR.sk]: { S: IDEMPOTENCY_SK } },
          UpdateExpression: update,
          ConditionExpression: IDEMPOTENCY_OWN_CLAIM,
          ExpressionAttributeNames: namesFor(update, IDEMPOTENCY_OWN_CLAIM),
          ExpressionAttributeValues: {
            ':completed': { S: 'completed' },
            ':in_progress': { S: 'in_progress' },
            ':claim_id': { S: claim.claimId },
            ':response_status': { N: String(response.status) },
            ':expires_at': { N: String(this.#expiresAt(this.#now())) },
            ...stored,
          },
        }),
      );
    } catch (error) {
      // Our claim outlived its deadline and another request took the key: its answer will be the one kept.
      if (isConditionalCheckFailed(error)) return;
      throw error;
    }
  }

  async release(claim: Extract<IdempotencyClaim, { state: 'claimed' }>): Promise<void> {
    const { client, tableName } = this.#options;
    try {
      await client.send(
        new DeleteItemCommand({
          TableName: tableName,
          Key: { [ATTR.pk]: { S: claim.pk }, [ATTR.sk]: { S: IDEMPOTENCY_SK } },
          ConditionExpression: IDEMPOTENCY_OWN_CLAIM,
          ExpressionAttributeNames: namesFor(IDEMPOTENCY_OWN_CLAIM),
          ExpressionAttributeValues: { ':in_progress': { S: 'in_progress' }, ':claim_id': { S: claim.claimId } },
        }),
      );
    } catch (error) {
      // Someone else's claim now: theirs to keep.
      if (isConditionalCheckFailed(error)) return;
      throw error;
    }
  }

  async #response(item: Record<string, AttributeValue>): Promise<StoredResponse> {
    const status = Number(item[ATTR.responseStatus]?.N);
    const inline = item[ATTR.responseBody]?.B;
    const ref = item[ATTR.responseRef]?.S;
    let gzipped: Uint8Array;
    if (inline !== undefined) {
      gzipped = inline;
    } else if (ref !== undefined && this.#options.s3) {
      const { GetObjectCommand } = await s3SDK();
      const object = await this.#options.s3.client.send(new GetObjectCommand({ Bucket: this.#options.s3.bucket, Key: ref }));
      if (object.Body === undefined) throw new Error(`the stored response ${ref} has no body`);
      gzipped = await object.Body.transformToByteArray();
    } else {
      throw new Error(`the idempotency record ${item[ATTR.pk]?.S ?? '?'} is completed but holds no response`);
    }
    if (!Number.isInteger(status)) throw new Error(`the idempotency record ${item[ATTR.pk]?.S ?? '?'} has no response status`);
    return { status, body: gunzipSync(gzipped).toString('utf8') };
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #expiresAt(now: number): number {
    return Math.floor(now / 1000) + (this.#options.ttlSeconds ?? DEFAULT_IDEMPOTENCY_TTL_SECONDS);
  }
}
