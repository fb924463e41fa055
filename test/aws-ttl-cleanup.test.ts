/**
 * What TTL leaves behind, purged: on DynamoDB Local (whose TTL never fires) the expiry is
 * simulated by deleting the META item directly, as DynamoDB's TTL would.
 */
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { deleteSession, DynamoStore, exportSession, OffloadRequiredError, purgeSessionItems } from '@panto/aws';
import { RecordFactory } from '@panto/core/testing';
import { ttlCleanupHandler } from '@panto/functions';
import { describe, expect, it } from 'vitest';
import { dynamoFailingOn, localAws, once, type LocalAws } from './setup/aws-fixtures.js';
import { objectKeys, partitionSks } from './setup/aws-inspect.js';

const aws = once(() => localAws('ttl-cleanup'));

/** A session with inline entries and one offloaded message. */
async function sessionWithOffload({ dynamo, tableName, s3, bucket }: LocalAws): Promise<string> {
  const store = await DynamoStore.create({ client: dynamo, tableName, owner: 'expiring', ttlSeconds: 60, s3: { client: s3, bucket } });
  const f = new RecordFactory('ttl');
  await store.appendMessages([f.user('hi'), f.assistant('hello')]);
  await store.appendMessages([f.message({ role: 'tool_result', tool_call_id: 't', tool_name: 'read', content: 'y'.repeat(500_000), is_error: false })]);
  await store.appendMessages([f.user('still there?')]);
  return store.sessionId();
}

/** What DynamoDB's TTL does: delete the META item, nothing else. */
async function expire({ dynamo, tableName }: LocalAws, sessionId: string): Promise<void> {
  await dynamo.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: { S: `SESSION#${sessionId}` }, sk: { S: 'META' } } }));
}

async function halfDeleted(local: LocalAws): Promise<string> {
  const { dynamo, tableName, s3, bucket } = local;
  const sessionId = await sessionWithOffload(local);
  await exportSession({ dynamo, tableName, s3, bucket, owner: 'expiring', sessionId });
  const location = { client: s3, bucket };
  await expect(
    deleteSession({ client: dynamoFailingOn('QueryCommand'), tableName, owner: 'expiring', sessionId, s3: location, exports: location }),
  ).rejects.toThrow('crashed before QueryCommand');
  expect(await objectKeys(local, `exports/${sessionId}/`)).toHaveLength(1);
  return sessionId;
}

describe('purgeSessionItems on DynamoDB Local and s3rver', () => {
  it('deletes the entry items and offloaded texts an expired session left behind, and a second run deletes nothing', async () => {
    const local = await aws();
    const { dynamo, tableName, s3, bucket } = local;
    const sessionId = await sessionWithOffload(local);
    const bystander = await sessionWithOffload(local);
    // An object under the prefix no item points at (a lost race's leftover).
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `offload/${sessionId}/stray.jsonl`, Body: 'x' }));
    await expire(local, sessionId);
    const left = await partitionSks(local, sessionId);
    expect(left.length).toBeGreaterThan(1);
    expect(left).not.toContain('META');
    expect(await objectKeys(local, `offload/${sessionId}/`)).toHaveLength(2);

    const first = await purgeSessionItems({ client: dynamo, tableName, sessionId, s3: { client: s3, bucket } });
    expect(first).toEqual({ purged: true, items: left.length, offloads: 1 });
    expect(await partitionSks(local, sessionId)).toEqual([]);
    expect(await objectKeys(local, `offload/${sessionId}/`)).toEqual([]);

    const second = await purgeSessionItems({ client: dynamo, tableName, sessionId, s3: { client: s3, bucket } });
    expect(second).toEqual({ purged: true, items: 0, offloads: 0 });
    // The other session is untouched and still reads back whole.
    expect(await partitionSks(local, bystander)).toContain('META');
    expect(await objectKeys(local, `offload/${bystander}/`)).toHaveLength(1);
    const reopened = await DynamoStore.open({ client: dynamo, tableName, owner: 'expiring', sessionId: bystander, s3: { client: s3, bucket } });
    expect((await reopened.metadata()).entryCount).toBe(4);
  });

  it('leaves a session that has a META item alone', async () => {
    const local = await aws();
    const { dynamo, tableName, s3, bucket } = local;
    const sessionId = await sessionWithOffload(local);
    const before = await partitionSks(local, sessionId);
    expect(await purgeSessionItems({ client: dynamo, tableName, sessionId, s3: { client: s3, bucket } })).toEqual({ purged: false, items: 0, offloads: 0 });
    expect(await partitionSks(local, sessionId)).toEqual(before);
    expect(await objectKeys(local, `offload/${sessionId}/`)).toHaveLength(1);
  });

  it('finishes a delete that crashed after its tombstone: items, tombstone, offloaded texts and exports', async () => {
    const local = await aws();
    const { dynamo, tableName, s3, bucket } = local;
    const sessionId = await halfDeleted(local);
    const location = { client: s3, bucket };
    const items = (await partitionSks(local, sessionId)).filter((sk) => sk !== 'META');
    expect(await purgeSessionItems({ client: dynamo, tableName, sessionId, s3: location, exports: location })).toEqual({
      purged: true,
      items: items.length,
      offloads: 1,
    });
    expect(await partitionSks(local, sessionId)).toEqual([]);
    expect(await objectKeys(local, `offload/${sessionId}/`)).toEqual([]);
    expect(await objectKeys(local, `exports/${sessionId}/`)).toEqual([]);
  });

  it('refuses with OffloadRequiredError, deleting nothing, when items point at S3 and no S3 location is given', async () => {
    const local = await aws();
    const { dynamo, tableName } = local;
    const sessionId = await sessionWithOffload(local);
    await expire(local, sessionId);
    const before = await partitionSks(local, sessionId);
    await expect(purgeSessionItems({ client: dynamo, tableName, sessionId })).rejects.toBeInstanceOf(OffloadRequiredError);
    expect(await partitionSks(local, sessionId)).toEqual(before);
  });
});

describe('ttlCleanupHandler on DynamoDB Local and s3rver', () => {
  it("purges the session a TTL stream record names, and leaves the session a user's delete record names", async () => {
    const local = await aws();
    const { dynamo, tableName, s3, bucket } = local;
    const [expired, userDeleted] = [await sessionWithOffload(local), await sessionWithOffload(local)];
    await expire(local, expired);
    await expire(local, userDeleted);
    const keys = (sessionId: string) => ({ pk: { S: `SESSION#${sessionId}` }, sk: { S: 'META' } });
    const handler = ttlCleanupHandler({
      purge: (sessionId) => purgeSessionItems({ client: dynamo, tableName, sessionId, s3: { client: s3, bucket } }),
    });
    const result = await handler({
      Records: [
        {
          eventName: 'REMOVE',
          userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
          dynamodb: { Keys: keys(expired), SequenceNumber: '1' },
        },
        { eventName: 'REMOVE', dynamodb: { Keys: keys(userDeleted), SequenceNumber: '2' } },
      ],
    });
    expect(result).toEqual({ batchItemFailures: [] });
    expect(await partitionSks(local, expired)).toEqual([]);
    expect(await objectKeys(local, `offload/${expired}/`)).toEqual([]);
    expect((await partitionSks(local, userDeleted)).length).toBeGreaterThan(0);
  });

  it('purges everything of a session once TTL removes the tombstone a crashed delete left, exports included', async () => {
    const local = await aws();
    const { dynamo, tableName, s3, bucket } = local;
    const sessionId = await halfDeleted(local);
    await expire(local, sessionId); // TTL deletes the tombstone (expires_at passed)
    const location = { client: s3, bucket };
    const handler = ttlCleanupHandler({
      purge: (id) => purgeSessionItems({ client: dynamo, tableName, sessionId: id, s3: location, exports: location }),
    });
    const result = await handler({
      Records: [
        {
          eventName: 'REMOVE',
          userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
          dynamodb: { Keys: { pk: { S: `SESSION#${sessionId}` }, sk: { S: 'META' } }, SequenceNumber: '1' },
        },
      ],
    });
    expect(result).toEqual({ batchItemFailures: [] });
    expect(await partitionSks(local, sessionId)).toEqual([]);
    expect(await objectKeys(local, `offload/${sessionId}/`)).toEqual([]);
    expect(await objectKeys(local, `exports/${sessionId}/`)).toEqual([]);
  });
});
