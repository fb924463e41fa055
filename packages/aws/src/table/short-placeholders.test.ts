import { DynamoDBClient, TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { sendTransaction, withShortPlaceholders } from './short-placeholders.js';

const input: TransactWriteItemsCommandInput = {
  ClientRequestToken: 'token',
  TransactItems: [
    {
      Update: {
        TableName: 't',
        Key: { pk: { S: 'SESSION#a' }, sk: { S: 'META' } },
        UpdateExpression: 'SET #head = :head, #entry_count = #entry_count + :added REMOVE #lease_id',
        ConditionExpression: '#entry_count = :expected_count AND #lease_id = :lease AND #lease_expires_at <= :now AND :now_seconds > :now',
        ExpressionAttributeNames: { '#head': 'head', '#entry_count': 'entry_count', '#lease_id': 'lease_id', '#lease_expires_at': 'lease_expires_at' },
        ExpressionAttributeValues: {
          ':head': { S: 'e2' },
          ':added': { N: '1' },
          ':expected_count': { N: '1' },
          ':lease': { S: 'l' },
          ':now': { N: '5' },
          ':now_seconds': { N: '0' },
        },
      },
    },
    { Put: { TableName: 't', Item: { pk: { S: 'SESSION#a' } }, ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } } },
    { Delete: { TableName: 't', Key: { pk: { S: 'x' } } } },
  ],
};

describe('withShortPlaceholders', () => {
  it('renames each item’s placeholders to the shortest ones, consistently across its expressions and maps, and changes nothing else', () => {
    const short = withShortPlaceholders(input);
    const update = short.TransactItems![0]!.Update!;
    expect(update.UpdateExpression).toBe('SET #0 = :0, #1 = #1 + :1 REMOVE #2');
    expect(update.ConditionExpression).toBe('#1 = :2 AND #2 = :3 AND #3 <= :4 AND :5 > :4');
    expect(update.ExpressionAttributeNames).toEqual({ '#0': 'head', '#1': 'entry_count', '#2': 'lease_id', '#3': 'lease_expires_at' });
    expect(update.ExpressionAttributeValues).toEqual({
      ':0': { S: 'e2' },
      ':1': { N: '1' },
      ':2': { N: '1' },
      ':3': { S: 'l' },
      ':4': { N: '5' },
      ':5': { N: '0' },
    });
    expect(update.Key).toBe(input.TransactItems![0]!.Update!.Key);
    // Each item starts again from #0.
    expect(short.TransactItems![1]!.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(#0)', ExpressionAttributeNames: { '#0': 'pk' } });
    expect(short.TransactItems![2]).toEqual(input.TransactItems![2]);
    expect(short.ClientRequestToken).toBe('token');
    // The readable input is left as it was.
    expect(input.TransactItems![0]!.Update!.UpdateExpression).toContain('#entry_count');
  });

  it('renames a placeholder the maps lack too, which DynamoDB refuses as it did the readable one', () => {
    const short = withShortPlaceholders({
      TransactItems: [{ ConditionCheck: { TableName: 't', Key: {}, ConditionExpression: '#a = :missing', ExpressionAttributeNames: { '#a': 'a' } } }],
    });
    expect(short.TransactItems![0]!.ConditionCheck).toMatchObject({ ConditionExpression: '#0 = :0', ExpressionAttributeNames: { '#0': 'a' } });
    expect(short.TransactItems![0]!.ConditionCheck!.ExpressionAttributeValues).toBeUndefined();
  });
});

describe('sendTransaction', () => {
  it('shortens the placeholders on the wire only: the command’s input, which a mocked client or a middleware sees first, stays readable', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const seen: { first?: unknown; wire?: string } = {};
    client.middlewareStack.add(
      (next) => async (args) => {
        seen.first = args.input;
        return next(args);
      },
      { step: 'initialize', name: 'first', priority: 'high' },
    );
    client.middlewareStack.add(
      (_next) => async (args) => {
        seen.wire = String((args.request as { body?: unknown }).body);
        throw new Error('not sent');
      },
      { step: 'finalizeRequest', name: 'capture', priority: 'low' },
    );
    await expect(sendTransaction(client, input)).rejects.toThrow('not sent');
    expect(seen.first).toBe(input);
    expect(seen.wire).toContain('"UpdateExpression":"SET #0 = :0, #1 = #1 + :1 REMOVE #2"');
    expect(seen.wire).not.toContain('#entry_count');
    // A transaction of the user's own on the same client is sent as they wrote it.
    await expect(client.send(new TransactWriteItemsCommand({ ...input }))).rejects.toThrow('not sent');
    expect(seen.wire).toContain('#entry_count');
    client.destroy();
  });
});
