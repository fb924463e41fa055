import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { DynamoIdempotencyStore, idempotencyPk, MAX_INLINE_RESPONSE_BYTES } from './dynamo-idempotency-store.js';
import { requestFingerprint } from './request-fingerprint.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const NOW = 1_800_000_000_123;
const PK = idempotencyPk('alice', 'key-1');

function setup(): {
  store: DynamoIdempotencyStore;
  dynamo: ReturnType<typeof mockClient>;
  s3: ReturnType<typeof mockClient>;
} {
  const client = new DynamoDBClient({ region: 'us-east-1', credentials });
  const s3Client = new S3Client({ region: 'us-east-1', credentials });
  const dynamo = mockClient(client);
  const s3 = mockClient(s3Client);
  const store = new DynamoIdempotencyStore({
    client,
    tableName: 't',
    ttlSeconds: 3600,
    s3: { client: s3Client, bucket: 'b' },
    now: () => NOW,
  });
  return { store, dynamo, s3 };
}

function failed(item: Record<string, AttributeValue>): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: { httpStatusCode: 400 },
    Item: item,
  });
}

const request = { owner: 'alice', key: 'key-1', fingerprint: 'fp', inProgressMs: 35_000 };

describe('DynamoIdempotencyStore (mocked DynamoDB)', () => {
  it('claims a key with one conditional PutItem that returns the old item on failure, owner and key hashed', async () => {
    const { store, dynamo } = setup();
    dynamo.on(PutItemCommand).resolves({});
    const claim = await store.claim(request);
    expect(claim).toEqual({ state: 'claimed', claimId: expect.any(String), pk: PK });
    expect(PK).toMatch(/^IDEMPOTENCY#[0-9a-f]{64}$/);
    expect(PK).not.toContain('alice');
    expect(dynamo).toHaveReceivedCommandExactlyOnceWith(PutItemCommand, {
      TableName: 't',
      Item: {
        pk: { S: PK },
        sk: { S: 'IDEMPOTENCY' },
        status: { S: 'in_progress' },
        claim_id: { S: (claim as { claimId: string }).claimId },
        fingerprint: { S: 'fp' },
        in_progress_expires_at: { N: String(NOW + 35_000) },
        expires_at: { N: String(Math.floor(NOW / 1000) + 3600) },
      },
      ConditionExpression: 'attribute_not_exists(#pk) OR #expires_at < :now_seconds OR (#status = :in_progress AND #in_progress_expires_at < :now)',
      ExpressionAttributeNames: {
        '#pk': 'pk',
        '#expires_at': 'expires_at',
        '#status': 'status',
        '#in_progress_expires_at': 'in_progress_expires_at',
      },
      ExpressionAttributeValues: {
        ':now_seconds': { N: String(Math.floor(NOW / 1000)) },
        ':now': { N: String(NOW) },
        ':in_progress': { S: 'in_progress' },
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('answers a taken key from the old item alone: completed, in progress, or another request', async () => {
    const { store, dynamo } = setup();
    const old = { pk: { S: PK }, sk: { S: 'IDEMPOTENCY' }, fingerprint: { S: 'fp' } };
    dynamo
      .on(PutItemCommand)
      .rejectsOnce(
        failed({
          ...old,
          status: { S: 'completed' },
          response_status: { N: '201' },
          response_body: { B: gzipSync('{"id":"s1"}') },
        }),
      )
      .rejectsOnce(failed({ ...old, status: { S: 'in_progress' } }))
      .rejectsOnce(failed({ ...old, fingerprint: { S: 'another' }, status: { S: 'completed' } }));
    expect(await store.claim(request)).toEqual({ state: 'completed', response: { status: 201, body: '{"id":"s1"}' } });
    expect(await store.claim(request)).toEqual({ state: 'in_progress' });
    expect(await store.claim(request)).toEqual({ state: 'mismatch' });
    expect(dynamo).toHaveReceivedCommandTimes(PutItemCommand, 3);
    expect(dynamo.calls()).toHaveLength(3);
  });

  it('rethrows anything but a failed condition untouched', async () => {
    const { store, dynamo } = setup();
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    dynamo.on(PutItemCommand).rejects(throttled);
    await expect(store.claim(request)).rejects.toBe(throttled);
  });

  it('completes a claim with the gzipped answer, only while the claim is still its own', async () => {
    const { store, dynamo } = setup();
    dynamo.on(UpdateItemCommand).resolves({});
    await store.complete({ state: 'claimed', claimId: 'c1', pk: PK }, { status: 200, body: '{"ok":true}' });
    expect(dynamo).toHaveReceivedCommandExactlyOnceWith(UpdateItemCommand, {
      TableName: 't',
      Key: { pk: { S: PK }, sk: { S: 'IDEMPOTENCY' } },
      UpdateExpression:
        'SET #status = :completed, #response_status = :response_status, #response_body = :response_body, #expires_at = :expires_at REMOVE #in_progress_expires_at',
      ConditionExpression: '#status = :in_progress AND #claim_id = :claim_id',
      ExpressionAttributeValues: {
        ':completed': { S: 'completed' },
        ':in_progress': { S: 'in_progress' },
        ':claim_id': { S: 'c1' },
        ':response_status': { N: '200' },
        ':expires_at': { N: String(Math.floor(NOW / 1000) + 3600) },
        ':response_body': { B: expect.any(Uint8Array) },
      },
    });
    // Another request took the key after this claim's deadline: it is theirs; nothing to do.
    dynamo.on(UpdateItemCommand).rejects(failed({}));
    await expect(store.complete({ state: 'claimed', claimId: 'c1', pk: PK }, { status: 200, body: '{}' })).resolves.toBeUndefined();
  });

  it('keeps an answer too big for an item in S3 and points to it', async () => {
    const { store, dynamo, s3 } = setup();
    dynamo.on(UpdateItemCommand).resolves({});
    s3.on(PutObjectCommand).resolves({});
    // Random text does not compress: over the inline limit once gzipped.
    const body = JSON.stringify({ text: randomBytes(MAX_INLINE_RESPONSE_BYTES + 1024).toString('base64') });
    await store.complete({ state: 'claimed', claimId: 'c2', pk: PK }, { status: 200, body });
    const key = `idempotency/${PK.slice('IDEMPOTENCY#'.length)}/c2.json.gz`;
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, {
      Bucket: 'b',
      Key: key,
      ContentEncoding: 'gzip',
      ServerSideEncryption: 'AES256',
    });
    expect(dynamo).toHaveReceivedCommandWith(UpdateItemCommand, {
      UpdateExpression:
        'SET #status = :completed, #response_status = :response_status, #response_ref = :response_ref, #expires_at = :expires_at REMOVE #in_progress_expires_at',
      ExpressionAttributeValues: expect.objectContaining({ ':response_ref': { S: key } }),
    });
  });

  it('frees a claim with a conditional DeleteItem', async () => {
    const { store, dynamo } = setup();
    dynamo.on(DeleteItemCommand).resolves({});
    await store.release({ state: 'claimed', claimId: 'c3', pk: PK });
    expect(dynamo).toHaveReceivedCommandExactlyOnceWith(DeleteItemCommand, {
      TableName: 't',
      Key: { pk: { S: PK }, sk: { S: 'IDEMPOTENCY' } },
      ConditionExpression: '#status = :in_progress AND #claim_id = :claim_id',
      ExpressionAttributeNames: { '#status': 'status', '#claim_id': 'claim_id' },
      ExpressionAttributeValues: { ':in_progress': { S: 'in_progress' }, ':claim_id': { S: 'c3' } },
    });
  });
});

describe('requestFingerprint', () => {
  it('is the same for the same request however its JSON is spelt, and differs for another', () => {
    const a = requestFingerprint('post', '/sessions', { system: 'x', provider: 'offline' });
    expect(requestFingerprint('POST', '/sessions', { provider: 'offline', system: 'x' })).toBe(a);
    expect(requestFingerprint('POST', '/sessions', { provider: 'offline', system: 'y' })).not.toBe(a);
    expect(requestFingerprint('POST', '/sessions/1/messages', { provider: 'offline', system: 'x' })).not.toBe(a);
  });
});
