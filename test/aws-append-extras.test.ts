/**
 * The store's append hook on DynamoDB Local: writes of other items ride in the append's own
 * transaction — committed with the batch, or not at all — and a refusal of one of them is
 * handed to its owner, who fails the append with an error of its own or sends it again with
 * other writes; the hook may also refuse a batch before anything is sent.
 */
import { GetItemCommand, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { DynamoStore, type AppendExtras } from '@panto/aws';
import { RecordFactory } from '@panto/core/testing';
import { describe, expect, it } from 'vitest';
import { countCommands, localAws, once } from './setup/aws-fixtures.js';

const aws = once(() => localAws('append-extras'));

/** An ADD of 1 to item `sk`'s counter, only while it is below `below`. */
function bump(tableName: string, sk: string, below: number): TransactWriteItem {
  return {
    Update: {
      TableName: tableName,
      Key: { pk: { S: 'EXTRA#test' }, sk: { S: sk } },
      UpdateExpression: 'ADD #n :one',
      ConditionExpression: 'attribute_not_exists(#n) OR #n < :below',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':one': { N: '1' }, ':below': { N: String(below) } },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** A write that is always refused: its condition asks for an item that does not exist. */
function never(tableName: string): TransactWriteItem {
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: { pk: { S: 'EXTRA#test' }, sk: { S: 'never' } },
      ConditionExpression: 'attribute_exists(#n)',
      ExpressionAttributeNames: { '#n': 'n' },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

async function counter(sk: string): Promise<number | undefined> {
  const { dynamo, tableName } = await aws();
  const item = await dynamo.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'EXTRA#test' }, sk: { S: sk } }, ConsistentRead: true }));
  return item.Item?.n?.N === undefined ? undefined : Number(item.Item.n.N);
}

describe('writes that ride on an append', () => {
  it('commit in the same TransactWriteItems as the batch, with no request of their own', async () => {
    const { dynamo, tableName } = await aws();
    const store = await DynamoStore.create({ client: dynamo, tableName, owner: 'extras' });
    const f = new RecordFactory();
    let committed = 0;
    store.setAppendHook(() => ({ writes: [bump(tableName, 'same-tx', 10)], refused: async () => new Error('not refused'), committed: () => committed++ }));
    const counts = countCommands(dynamo);
    await store.appendMessages([f.user('one')]);
    await store.appendMessages([f.user('two')]);
    expect(Object.fromEntries(counts)).toEqual({ TransactWriteItemsCommand: 2 });
    expect(await counter('same-tx')).toBe(2);
    expect(committed).toBe(2);
    store.setAppendHook(null);
    await store.appendMessages([f.user('three')]);
    expect(await counter('same-tx')).toBe(2);
  });

  it('hand a refusal to their owner: its error fails the append and nothing is stored, or other writes send it again', async () => {
    const { dynamo, tableName } = await aws();
    const store = await DynamoStore.create({ client: dynamo, tableName, owner: 'extras' });
    const f = new RecordFactory();
    const refusals: unknown[] = [];
    store.setAppendHook(() => ({
      writes: [bump(tableName, 'alongside', 10), never(tableName)],
      refused: async (refused) => {
        refusals.push(refused);
        return new RangeError('over the limit');
      },
    }));
    await expect(store.appendMessages([f.user('refused')])).rejects.toThrow(RangeError);
    expect(refusals).toEqual([[{ index: 1, item: undefined }]]);
    expect(await counter('alongside')).toBeUndefined();
    const reopened = await DynamoStore.open({ client: dynamo, tableName, owner: 'extras', sessionId: store.sessionId() });
    expect(reopened.metadata().entryCount).toBe(0);

    // Sent again with other writes: the batch commits with those.
    const again: AppendExtras = { writes: [bump(tableName, 'instead', 5)], refused: async () => new Error('not refused') };
    store.setAppendHook(() => ({ writes: [never(tableName)], refused: async () => again }));
    await store.appendMessages([f.user('accepted')]);
    expect(await counter('instead')).toBe(1);
    expect((await DynamoStore.open({ client: dynamo, tableName, owner: 'extras', sessionId: store.sessionId() })).metadata().entryCount).toBe(1);
  });

  it('let the hook refuse the batch outright with an error: the append rejects with it and sends nothing', async () => {
    const { dynamo, tableName } = await aws();
    const store = await DynamoStore.create({ client: dynamo, tableName, owner: 'extras' });
    const f = new RecordFactory();
    store.setAppendHook(() => new RangeError('this model has no price'));
    const counts = countCommands(dynamo);
    await expect(store.appendMessages([f.user('never sent')])).rejects.toThrow('this model has no price');
    expect(Object.fromEntries(counts)).toEqual({});
    store.setAppendHook(null);
    await store.appendMessages([f.user('sent')]);
    expect((await DynamoStore.open({ client: dynamo, tableName, owner: 'extras', sessionId: store.sessionId() })).metadata().entryCount).toBe(1);
  });
});
