import { ConditionalCheckFailedException, DynamoDBClient, ProvisionedThroughputExceededException, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { updateSession } from './update-session.js';

const SESSION = '01900000-0000-7000-8000-000000000009';
let client: DynamoDBClient;
let dynamo: AwsClientStub<DynamoDBClient>;

beforeEach(() => {
  client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  dynamo = mockClient(client);
});

const meta = {
  pk: { S: `SESSION#${SESSION}` },
  sk: { S: 'META' },
  owner: { S: 'o' },
  created_at: { S: 't0' },
  updated_at: { S: 't1' },
  entry_count: { N: '2' },
  header: { S: '{}\n' },
  title: { S: 'New name' },
  active_provider: { S: 'openai' },
  active_model: { S: 'gpt-x' },
};

describe('updateSession (mocked DynamoDB)', () => {
  it('sets the title and the model with one UpdateItem on a live, unexpired META of the owner, and returns the metadata', async () => {
    dynamo.on(UpdateItemCommand).resolves({ Attributes: meta });
    const updated = await updateSession({
      client,
      tableName: 't',
      owner: 'o',
      sessionId: SESSION,
      title: 'New name',
      activeModel: { provider: 'openai', model: 'gpt-x' },
      clock: () => new Date(5_000),
    });
    expect(updated).toMatchObject({
      title: 'New name',
      activeModel: { provider: 'openai', model: 'gpt-x' },
      entryCount: 2,
    });
    expect(dynamo.commandCalls(UpdateItemCommand)[0]!.args[0].input).toEqual({
      TableName: 't',
      Key: { pk: { S: `SESSION#${SESSION}` }, sk: { S: 'META' } },
      UpdateExpression: 'SET #title = :title, #active_provider = :active_provider, #active_model = :active_model',
      ConditionExpression:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND (attribute_not_exists(#expires_at) OR #expires_at > :now_seconds)',
      ExpressionAttributeNames: {
        '#title': 'title',
        '#active_provider': 'active_provider',
        '#active_model': 'active_model',
        '#pk': 'pk',
        '#owner': 'owner',
        '#deleted_at': 'deleted_at',
        '#expires_at': 'expires_at',
      },
      ExpressionAttributeValues: {
        ':owner': { S: 'o' },
        ':now_seconds': { N: '5' },
        ':title': { S: 'New name' },
        ':active_provider': { S: 'openai' },
        ':active_model': { S: 'gpt-x' },
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('answers a failed condition with SessionNotFoundError and rethrows throttling untouched', async () => {
    dynamo.on(UpdateItemCommand).rejectsOnce(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    await expect(updateSession({ client, tableName: 't', owner: 'o', sessionId: SESSION, title: 'x' })).rejects.toBeInstanceOf(SessionNotFoundError);
    const throttled = new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} });
    dynamo.reset();
    dynamo.on(UpdateItemCommand).rejects(throttled);
    await expect(updateSession({ client, tableName: 't', owner: 'o', sessionId: SESSION, title: 'x' })).rejects.toBe(throttled);
  });
});
