import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { InvalidCursorError } from '../errors.js';
import { decodeCursor, encodeCursor, listOwnerSessions } from './list-owner-sessions.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const key = {
  pk: { S: 'SESSION#s1' },
  sk: { S: 'META' },
  gsi1pk: { S: 'OWNER#alice' },
  gsi1sk: { S: '2026-01-01T00:00:00.000Z#s1' },
};

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
    ["another owner's", encodeCursor({ ...key, gsi1pk: { S: 'OWNER#bob' } })],
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
    const page = await listOwnerSessions({
      client,
      tableName: 't',
      owner: 'alice',
      limit: 5,
      clock: () => new Date(5_000),
    });
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
