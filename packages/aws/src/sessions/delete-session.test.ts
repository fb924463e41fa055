import { BatchWriteItemCommand, DeleteItemCommand, DynamoDBClient, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { SessionNotFoundError } from '@panto/core';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { deleteSession, purgeSessionItems, TOMBSTONE_TTL_SECONDS } from './delete-session.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const AT = new Date('2026-09-01T10:00:00.000Z');
const key = { pk: { S: 'SESSION#s-1' }, sk: { S: 'META' } };
const entry = { pk: { S: 'SESSION#s-1' }, sk: { S: 'E#000000000000' } };

function clients() {
  const dynamo = new DynamoDBClient({ region: 'us-east-1', credentials });
  const s3 = new S3Client({ region: 'us-east-1', credentials });
  return { dynamo, s3, dynamoMock: mockClient(dynamo), s3Mock: mockClient(s3) };
}

describe('deleteSession (mocked AWS)', () => {
  it('makes META a tombstone first, then reads the partition and deletes objects (offloads, exports, archives), items and the tombstone, in that order', async () => {
    const { dynamo, s3, dynamoMock, s3Mock } = clients();
    const order: string[] = [];
    const record = (name: string) => () => void order.push(name);
    dynamoMock.on(UpdateItemCommand).callsFake(record('tombstone'));
    dynamoMock.on(QueryCommand).callsFake(() => {
      order.push('read');
      return { Items: [entry, { ...key, owner: { S: 'alice' }, deleted_at: { S: AT.toISOString() } }] };
    });
    dynamoMock.on(BatchWriteItemCommand).callsFake(() => {
      order.push('items');
      return {};
    });
    dynamoMock.on(DeleteItemCommand).callsFake(record('meta'));
    s3Mock.on(ListObjectsV2Command).callsFake((input: { Prefix: string }) => {
      order.push(`list ${input.Prefix}`);
      return { Contents: [] };
    });
    s3Mock.on(DeleteObjectsCommand).resolves({});
    const location = { client: s3, bucket: 'b' };

    await deleteSession({
      client: dynamo,
      tableName: 't',
      owner: 'alice',
      sessionId: 's-1',
      s3: location,
      exports: location,
      clock: () => AT,
    });

    expect(order).toEqual(['tombstone', 'read', 'list offload/s-1/', 'list exports/s-1/', 'list archive/s-1/', 'items', 'meta']);
    expect(dynamoMock).toHaveReceivedCommandExactlyOnceWith(UpdateItemCommand, {
      TableName: 't',
      Key: key,
      UpdateExpression: 'SET #deleted_at = if_not_exists(#deleted_at, :deleted_at), #expires_at = :expires_at REMOVE #gsi1pk, #gsi1sk, #gsi2pk, #gsi2sk',
      ConditionExpression: 'attribute_exists(#pk) AND #owner = :owner',
      ExpressionAttributeNames: {
        '#deleted_at': 'deleted_at',
        '#expires_at': 'expires_at',
        '#gsi1pk': 'gsi1pk',
        '#gsi1sk': 'gsi1sk',
        '#gsi2pk': 'gsi2pk',
        '#gsi2sk': 'gsi2sk',
        '#pk': 'pk',
        '#owner': 'owner',
      },
      ExpressionAttributeValues: {
        ':owner': { S: 'alice' },
        ':deleted_at': { S: '2026-09-01T10:00:00.000Z' },
        ':expires_at': { N: String(AT.getTime() / 1000 + TOMBSTONE_TTL_SECONDS) },
      },
    });
    expect(dynamoMock).toHaveReceivedCommandWith(QueryCommand, { ConsistentRead: true });
    expect(dynamoMock).toHaveReceivedCommandWith(BatchWriteItemCommand, {
      RequestItems: { t: [{ DeleteRequest: { Key: entry } }] },
    });
    expect(dynamoMock).toHaveReceivedCommandExactlyOnceWith(DeleteItemCommand, {
      TableName: 't',
      Key: key,
      ConditionExpression: 'attribute_exists(#deleted_at)',
      ExpressionAttributeNames: { '#deleted_at': 'deleted_at' },
    });
  });

  it("answers another owner's or a missing session with SessionNotFoundError after the one conditional write, reading and deleting nothing", async () => {
    const { dynamo, dynamoMock } = clients();
    dynamoMock.on(UpdateItemCommand).rejects(Object.assign(new Error('failed'), { name: 'ConditionalCheckFailedException' }));
    await expect(
      deleteSession({
        client: dynamo,
        tableName: 't',
        owner: 'mallory',
        sessionId: 's-1',
        s3: { client: new S3Client({}), bucket: 'b' },
      }),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(dynamoMock).toHaveReceivedCommandTimes(QueryCommand, 0);
    expect(dynamoMock).toHaveReceivedCommandTimes(BatchWriteItemCommand, 0);
    expect(dynamoMock).toHaveReceivedCommandTimes(DeleteItemCommand, 0);
  });
});

describe('purgeSessionItems (mocked AWS)', () => {
  it('leaves a live session alone and purges a tombstoned one, the tombstone last', async () => {
    const { dynamo, dynamoMock } = clients();
    dynamoMock
      .on(QueryCommand)
      .resolvesOnce({ Items: [entry, { ...key, owner: { S: 'alice' } }] })
      .resolves({ Items: [entry, { ...key, owner: { S: 'alice' }, deleted_at: { S: AT.toISOString() } }] });
    dynamoMock.on(BatchWriteItemCommand).resolves({});
    dynamoMock.on(DeleteItemCommand).resolves({});
    expect(await purgeSessionItems({ client: dynamo, tableName: 't', sessionId: 's-1' })).toEqual({
      purged: false,
      items: 0,
      offloads: 0,
    });
    expect(dynamoMock).toHaveReceivedCommandTimes(BatchWriteItemCommand, 0);
    expect(await purgeSessionItems({ client: dynamo, tableName: 't', sessionId: 's-1' })).toEqual({
      purged: true,
      items: 1,
      offloads: 0,
    });
    expect(dynamoMock).toHaveReceivedCommandExactlyOnceWith(DeleteItemCommand, {
      Key: key,
      ConditionExpression: 'attribute_exists(#deleted_at)',
    });
  });
});
