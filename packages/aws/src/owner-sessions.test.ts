import 'aws-sdk-client-mock-vitest/extend';
import { DynamoDBClient, QueryCommand, UpdateItemCommand, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { InvalidCursorError, SessionBusyError } from './errors.js';
import { acquireSessionLease } from './lease.js';
import { decodeCursor, encodeCursor, listOwnerSessions } from './owner-sessions.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const key = { pk: { S: 'SESSION#s1' }, sk: { S: 'META' }, gsi1pk: { S: 'OWNER#alice' }, gsi1sk: { S: '2026-01-01T00:00:00.000Z#s1' } };

describe('list cursors', () => {
  it('round-trip a LastEvaluatedKey as opaque base64url', () => {
    const cursor = encodeCursor(key);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 'alice')).toEqual(key);
  });

  it.each([
    ['not base64url', '%%%'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['a JSON array', Buffer.from('[1]').toString('base64url')],
    ['missing keys', Buffer.from('{"pk":"SESSION#s1"}').toString('base64url')],
    ['extra keys', Buffer.from(JSON.stringify({ pk: 'SESSION#s1', sk: 'META', gsi1pk: 'OWNER#alice', gsi1sk: 'x', more: 'y' })).toString('base64url')],
    ['another owner\'s', encodeCursor({ ...key, gsi1pk: { S: 'OWNER#bob' } })],
    ['not a META key', encodeCursor({ ...key, sk: { S: 'E#000000000000' } })],
  ])('refuses %s with InvalidCursorError', (_, cursor) => {
    expect(() => decodeCursor(cursor, 'alice')).toThrow(InvalidCursorError);
  });
});

describe('listOwnerSessions (mocked DynamoDB)', () => {
  it('queries the byOwner index newest first, hiding expired sessions, and returns the next cursor', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', credentials });
    const mock = mockClient(client);
    mock.on(QueryCommand).resolves({ Items: [], LastEvaluatedKey: key });
    const page = await listOwnerSessions({ client, tableName: 't', owner: 'alice', limit: 5, clock: () => new Date(5_000) });
    expect(mock).toHaveReceivedCommandWith(QueryCommand, {
      TableName: 't',
      IndexName: 'byOwner',
      KeyConditionExpression: '#gsi1pk = :gsi1pk',
      FilterExpression: 'attribute_not_exists(#expires_at) OR #expires_at > :now_seconds',
      ExpressionAttributeNames: { '#gsi1pk': 'gsi1pk', '#expires_at': 'expires_at' },
      ExpressionAttributeValues: { ':gsi1pk': { S: 'OWNER#alice' }, ':now_seconds': { N: '5' } },
      ScanIndexForward: false,
      Limit: 6,
    });
    expect(page.nextCursor).toBe(encodeCursor(key));
  });

  it('asks for one session more than the page: a next cursor only when it came back, starting after the last one kept', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', credentials });
    const mock = mockClient(client);
    const meta = (n: number) => ({
      pk: { S: `SESSION#s${n}` },
      sk: { S: 'META' },
      gsi1pk: { S: 'OWNER#alice' },
      gsi1sk: { S: `2026-01-0${n}T00:00:00.000Z#s${n}` },
      owner: { S: 'alice' },
      created_at: { S: '2026-01-01T00:00:00.000Z' },
      updated_at: { S: '2026-01-01T00:00:00.000Z' },
      entry_count: { N: '0' },
      header: { S: `{"type":"session","version":1,"id":"s${n}","timestamp":"2026-01-01T00:00:00.000Z"}\n` },
    });
    // Exactly a page left: DynamoDB stops at Limit 3 with a LastEvaluatedKey only if a third item exists.
    mock.on(QueryCommand).resolves({ Items: [meta(2), meta(1)] });
    const last = await listOwnerSessions({ client, tableName: 't', owner: 'alice', limit: 2 });
    expect(last.sessions.map((session) => session.id)).toEqual(['s2', 's1']);
    expect(last.nextCursor).toBeNull();
    expect(mock).toHaveReceivedCommandWith(QueryCommand, { Limit: 3 });

    mock.reset();
    mock.on(QueryCommand).resolves({ Items: [meta(3), meta(2), meta(1)], LastEvaluatedKey: { ...key } });
    const more = await listOwnerSessions({ client, tableName: 't', owner: 'alice', limit: 2 });
    expect(more.sessions.map((session) => session.id)).toEqual(['s3', 's2']);
    const { pk, sk, gsi1pk, gsi1sk } = meta(2);
    expect(more.nextCursor).toBe(encodeCursor({ pk, sk, gsi1pk, gsi1sk }));
  });
});

describe('acquireSessionLease (mocked DynamoDB)', () => {
  function failed(item?: Record<string, { S: string } | { N: string }>): ConditionalCheckFailedException {
    return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 }, ...(item ? { Item: item } : {}) });
  }

  /** The META item an UpdateItem with ReturnValues ALL_NEW gives back. */
  const leasedMeta = {
    pk: { S: 'SESSION#s1' },
    sk: { S: 'META' },
    owner: { S: 'alice' },
    created_at: { S: '2026-01-01T00:00:00.000Z' },
    updated_at: { S: '2026-01-01T00:00:00.000Z' },
    entry_count: { N: '0' },
    header: { S: '{"type":"session","version":1,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z"}\n' },
  };

  it('takes the lease with one conditional UpdateItem on META, which returns the item', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', credentials });
    const mock = mockClient(client);
    mock.on(UpdateItemCommand).resolves({ Attributes: leasedMeta });
    const lease = await acquireSessionLease({ client, tableName: 't', owner: 'alice', sessionId: 's1', leaseMs: 30_000, now: () => 1_000 });
    expect(lease.expiresAt).toBe(31_000);
    expect(mock).toHaveReceivedCommandExactlyOnceWith(UpdateItemCommand, {
      TableName: 't',
      Key: { pk: { S: 'SESSION#s1' }, sk: { S: 'META' } },
      UpdateExpression: 'SET #lease_id = :lease_id, #lease_expires_at = :lease_expires_at',
      ConditionExpression:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND (attribute_not_exists(#lease_id) OR #lease_expires_at <= :now)',
      ExpressionAttributeValues: { ':owner': { S: 'alice' }, ':now': { N: '1000' }, ':lease_id': { S: lease.leaseId }, ':lease_expires_at': { N: '31000' } },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    await lease.release();
    expect(mock).toHaveReceivedCommandWith(UpdateItemCommand, {
      UpdateExpression: 'REMOVE #lease_id, #lease_expires_at',
      ConditionExpression: '#lease_id = :lease_id',
      ExpressionAttributeValues: { ':lease_id': { S: lease.leaseId } },
    });
  });

  it('maps a failed condition to SessionBusyError when the owner holds a live lease, else SessionNotFoundError', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', credentials });
    const mock = mockClient(client);
    mock
      .on(UpdateItemCommand)
      .rejectsOnce(failed({ owner: { S: 'alice' }, lease_id: { S: 'x' }, lease_expires_at: { N: '9000' } }))
      .rejectsOnce(failed({ owner: { S: 'bob' } }))
      .rejectsOnce(failed())
      // A tombstone (a delete in progress) whose turn still holds the lease: gone, not busy.
      .rejectsOnce(failed({ owner: { S: 'alice' }, lease_id: { S: 'x' }, lease_expires_at: { N: '9000' }, deleted_at: { S: '2026-01-01T00:00:00.000Z' } }));
    const options = { client, tableName: 't', owner: 'alice', sessionId: 's1', leaseMs: 1000 };
    const busy = await acquireSessionLease(options).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(SessionBusyError);
    expect(busy).toMatchObject({ leaseExpiresAt: 9000, sessionId: 's1' });
    await expect(acquireSessionLease(options)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(acquireSessionLease(options)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(acquireSessionLease(options)).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('ignores a lost lease on release but rethrows other errors untouched', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', credentials });
    const mock = mockClient(client);
    const throttled = Object.assign(new Error('slow'), { name: 'ThrottlingException' });
    mock.on(UpdateItemCommand).resolvesOnce({ Attributes: leasedMeta }).rejectsOnce(failed()).rejectsOnce(throttled);
    const lease = await acquireSessionLease({ client, tableName: 't', owner: 'alice', sessionId: 's1', leaseMs: 1000 });
    await lease.release();
    await expect(lease.release()).rejects.toBe(throttled);
  });
});
