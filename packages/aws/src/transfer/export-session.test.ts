import { DynamoDBClient, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SessionNotFoundError } from '@panto/core';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { archiveKey, archivePrefix, exportKey, exportPrefix } from '../s3/session-objects.js';
import { exportSession, presignExport } from './export-session.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const AT = new Date('2026-07-08T09:10:11.123Z');

describe('presignExport', () => {
  it('signs a GET of the export key for the given lifetime, from the given time', async () => {
    const s3 = new S3Client({ region: 'eu-west-1', credentials });
    const url = new URL(await presignExport(s3, { bucket: 'exports-bucket', key: 'exports/o/s/x.jsonl' }, 900, AT));
    expect(url.hostname).toBe('exports-bucket.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/exports/o/s/x.jsonl');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20260708T091011Z');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20260708/eu-west-1/s3/aws4_request');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('asks S3 to serve an export as a download named <session id>.jsonl', async () => {
    const s3 = new S3Client({ region: 'eu-west-1', credentials });
    const id = '019ad1c3-2a10-7f3c-8e21-5b6d7c8e9f00';
    const url = new URL(await presignExport(s3, { bucket: 'b', key: `exports/${id}/20260708T091011Z-3-entries.jsonl` }, 900, AT));
    expect(url.searchParams.get('response-content-disposition')).toBe(`attachment; filename="${id}.jsonl"`);
    const other = new URL(await presignExport(s3, { bucket: 'b', key: 'elsewhere/x.jsonl' }, 900, AT));
    expect(other.searchParams.get('response-content-disposition')).toBe('attachment; filename="x.jsonl"');
  });
});

describe('exportSession (mocked AWS)', () => {
  const meta = {
    pk: { S: 'SESSION#s-1' },
    sk: { S: 'META' },
    owner: { S: 'alice' },
    created_at: { S: 'c' },
    updated_at: { S: 'u' },
    entry_count: { N: '1' },
    header: { S: '{"type":"session"}\n' },
  };

  it('uploads to exports/<id>/<timestamp>-<entries>-entries.jsonl as x-ndjson with SSE and presigns it for 15 minutes by default', async () => {
    const dynamo = new DynamoDBClient({ region: 'us-east-1', credentials });
    const s3 = new S3Client({ region: 'us-east-1', credentials });
    const dynamoMock = mockClient(dynamo);
    const s3Mock = mockClient(s3);
    dynamoMock.on(GetItemCommand).resolves({ Item: meta });
    dynamoMock.on(QueryCommand).resolves({
      Items: [
        {
          pk: meta.pk,
          sk: { S: 'E#000000000000' },
          count: { N: '1' },
          batch_end: { BOOL: true },
          lines: { S: '{"entry":1}\n' },
        },
      ],
    });
    s3Mock.on(PutObjectCommand).resolves({});
    const result = await exportSession({
      dynamo,
      tableName: 't',
      s3,
      bucket: 'b',
      owner: 'alice',
      sessionId: 's-1',
      now: () => AT,
    });
    expect(result).toMatchObject({
      bucket: 'b',
      key: 'exports/s-1/20260708T091011.123Z-1-entries.jsonl',
      bytes: 31,
      entries: 1,
    });
    expect(new URL(result.url).searchParams.get('X-Amz-Expires')).toBe('900');
    expect(s3Mock).toHaveReceivedCommandWith(PutObjectCommand, {
      Bucket: 'b',
      Key: 'exports/s-1/20260708T091011.123Z-1-entries.jsonl',
      ContentType: 'application/x-ndjson',
      ServerSideEncryption: 'AES256',
    });
    expect(dynamoMock).toHaveReceivedCommandWith(QueryCommand, {
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :entry_prefix)',
      ConsistentRead: true,
    });
    const custom = await exportSession({
      dynamo,
      tableName: 't',
      s3,
      bucket: 'b',
      owner: 'alice',
      sessionId: 's-1',
      now: () => AT,
      expiresIn: 60,
    });
    expect(new URL(custom.url).searchParams.get('X-Amz-Expires')).toBe('60');
  });

  it('answers another owner with SessionNotFoundError and uploads nothing', async () => {
    const dynamo = new DynamoDBClient({ region: 'us-east-1', credentials });
    const s3 = new S3Client({ region: 'us-east-1', credentials });
    mockClient(dynamo).on(GetItemCommand).resolves({ Item: meta });
    const s3Mock = mockClient(s3);
    await expect(exportSession({ dynamo, tableName: 't', s3, bucket: 'b', owner: 'mallory', sessionId: 's-1' })).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(s3Mock).toHaveReceivedCommandTimes(PutObjectCommand, 0);
  });

  it('answers a session being deleted (a tombstone) with SessionNotFoundError and uploads nothing', async () => {
    const dynamo = new DynamoDBClient({ region: 'us-east-1', credentials });
    const s3 = new S3Client({ region: 'us-east-1', credentials });
    mockClient(dynamo)
      .on(GetItemCommand)
      .resolves({ Item: { ...meta, deleted_at: { S: '2026-07-08T09:00:00.000Z' } } });
    const s3Mock = mockClient(s3);
    await expect(exportSession({ dynamo, tableName: 't', s3, bucket: 'b', owner: 'alice', sessionId: 's-1' })).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(s3Mock).toHaveReceivedCommandTimes(PutObjectCommand, 0);
  });

  it.each([
    ['turned into a tombstone', { Item: { ...meta, deleted_at: { S: '2026-07-08T09:10:12.000Z' } } }],
    ['deleted', {}],
  ])('deletes its object again and answers SessionNotFoundError when the session was %s during the upload', async (_what, after) => {
    const dynamo = new DynamoDBClient({ region: 'us-east-1', credentials });
    const s3 = new S3Client({ region: 'us-east-1', credentials });
    const dynamoMock = mockClient(dynamo);
    dynamoMock.on(GetItemCommand).resolvesOnce({ Item: meta }).resolves(after);
    dynamoMock.on(QueryCommand).resolves({
      Items: [
        {
          pk: meta.pk,
          sk: { S: 'E#000000000000' },
          count: { N: '1' },
          batch_end: { BOOL: true },
          lines: { S: '{"entry":1}\n' },
        },
      ],
    });
    const s3Mock = mockClient(s3);
    s3Mock.on(PutObjectCommand).resolves({});
    s3Mock.on(DeleteObjectCommand).resolves({});
    await expect(exportSession({ dynamo, tableName: 't', s3, bucket: 'b', owner: 'alice', sessionId: 's-1', now: () => AT })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    expect(dynamoMock).toHaveReceivedCommandWith(GetItemCommand, { ConsistentRead: true });
    expect(s3Mock).toHaveReceivedCommandWith(PutObjectCommand, {
      Bucket: 'b',
      Key: 'exports/s-1/20260708T091011.123Z-1-entries.jsonl',
    });
    expect(s3Mock).toHaveReceivedCommandWith(DeleteObjectCommand, {
      Bucket: 'b',
      Key: 'exports/s-1/20260708T091011.123Z-1-entries.jsonl',
    });
  });

  it('keys exports and archives by session id alone, under the prefixes a delete empties, naming the entry count', () => {
    expect(exportKey('s', AT, 42)).toBe('exports/s/20260708T091011.123Z-42-entries.jsonl');
    expect(exportKey('s', AT, 42).startsWith(exportPrefix('s'))).toBe(true);
    expect(exportPrefix('s')).toBe('exports/s/');
    expect(archiveKey('s', AT, 0)).toBe('archive/s/20260708T091011.123Z-0-entries.jsonl');
    expect(archivePrefix('s')).toBe('archive/s/');
  });
});
