import {
  DynamoDBClient,
  GetItemCommand,
  IdempotentParameterMismatchException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  PutItemCommand,
  ThrottlingException,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { InvalidBatchError, SessionConflictError, SessionNotFoundError, type SessionEntry } from '@panto/core';
import { encodeBatchLines } from '@panto/core/store-kit';
import { RecordFactory } from '@panto/core/testing';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { OffloadRequiredError, SessionLeaseLostError } from '../errors.js';
import { DynamoStore } from './dynamo-store.js';

const TABLE = 'sessions';
const OWNER = 'owner-1';
const SESSION = '01900000-0000-7000-8000-000000000001';
const NOW = new Date('2026-02-03T04:05:06.000Z');
const fakeCredentials = { accessKeyId: 'test', secretAccessKey: 'test' };

let client: DynamoDBClient;
let dynamo: AwsClientStub<DynamoDBClient>;

beforeEach(() => {
  client = new DynamoDBClient({ region: 'us-east-1', credentials: fakeCredentials });
  dynamo = mockClient(client);
  dynamo.on(PutItemCommand).resolves({});
});

async function newStore(options: { maxRetries?: number; s3?: S3Client } = {}): Promise<DynamoStore> {
  return DynamoStore.create({
    client,
    tableName: TABLE,
    owner: OWNER,
    sessionId: SESSION,
    clock: () => NOW,
    maxRetries: options.maxRetries ?? 2,
    ...(options.s3 === undefined ? {} : { s3: { client: options.s3, bucket: 'offloads' } }),
  });
}

function transactions(): TransactWriteItemsCommandInput[] {
  return dynamo.commandCalls(TransactWriteItemsCommand).map((call) => call.args[0].input);
}

function canceled(reasons: Array<{ Code: string; Item?: Record<string, AttributeValue> }>): TransactionCanceledException {
  return new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: reasons,
  });
}

/** The META item as DynamoDB returns it with ALL_OLD. */
function oldMeta(head: string, count: number, owner = OWNER): Record<string, AttributeValue> {
  return {
    pk: { S: `SESSION#${SESSION}` },
    sk: { S: 'META' },
    owner: { S: owner },
    head: { S: head },
    entry_count: { N: String(count) },
  };
}

describe('DynamoStore.appendMessages (mocked DynamoDB)', () => {
  it('creates the session with a Put conditioned on the id being free', async () => {
    await newStore();
    expect(dynamo).toHaveReceivedCommandWith(PutItemCommand, {
      TableName: TABLE,
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'pk' },
      Item: expect.objectContaining({
        pk: { S: `SESSION#${SESSION}` },
        sk: { S: 'META' },
        owner: { S: OWNER },
        entry_count: { N: '0' },
        gsi1pk: { S: `OWNER#${OWNER}` },
        gsi1sk: { S: `2026-02-03T04:05:06.000Z#${SESSION}` },
        header: { S: `{"type":"session","version":2,"id":"${SESSION}","timestamp":"2026-02-03T04:05:06.000Z"}\n` },
      }),
    });
  });

  it('sends one transaction: the META update conditioned on an empty head, then each entry item put only if absent', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const store = await newStore();
    const f = new RecordFactory('u');
    const batch = [f.user('  Hello\n there '), f.assistant('hi')];
    await store.appendMessages(batch);

    expect(dynamo).toHaveReceivedCommandTimes(TransactWriteItemsCommand, 1);
    const [input] = transactions();
    expect(input!.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(input!.TransactItems).toHaveLength(2);
    expect(input!.TransactItems![0]).toEqual({
      Update: {
        TableName: TABLE,
        Key: { pk: { S: `SESSION#${SESSION}` }, sk: { S: 'META' } },
        ConditionExpression:
          'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_not_exists(#archived_at) AND #entry_count = :expected_count AND attribute_not_exists(#head)',
        UpdateExpression:
          'SET #head = :head, #next_parent = :next_parent, #entry_count = #entry_count + :added, #listed_count = #entry_count + :added, #listed_head = :head, ' +
          '#updated_at = :updated_at, #gsi1sk = :gsi1sk, #gsi2pk = :gsi2pk, #gsi2sk = :gsi2sk' +
          ', #active_provider = :active_provider, #active_model = :active_model, #title = if_not_exists(#title, :title)',
        ExpressionAttributeNames: {
          '#pk': 'pk',
          '#owner': 'owner',
          '#deleted_at': 'deleted_at',
          '#archived_at': 'archived_at',
          '#entry_count': 'entry_count',
          '#head': 'head',
          '#next_parent': 'next_parent',
          '#listed_count': 'listed_count',
          '#listed_head': 'listed_head',
          '#updated_at': 'updated_at',
          '#gsi1sk': 'gsi1sk',
          '#gsi2pk': 'gsi2pk',
          '#gsi2sk': 'gsi2sk',
          '#active_provider': 'active_provider',
          '#active_model': 'active_model',
          '#title': 'title',
        },
        ExpressionAttributeValues: {
          ':owner': { S: OWNER },
          ':expected_count': { N: '0' },
          ':head': { S: batch[1]!.id },
          ':next_parent': { S: batch[1]!.id },
          ':added': { N: '2' },
          ':updated_at': { S: NOW.toISOString() },
          ':gsi1sk': { S: `${NOW.toISOString()}#${SESSION}` },
          ':gsi2pk': { S: expect.stringMatching(/^ACTIVITY#(0\d|1[0-5])$/) as unknown as string },
          ':gsi2sk': { S: `${NOW.toISOString()}#${SESSION}` },
          ':active_provider': { S: 'scripted' },
          ':active_model': { S: 'scripted-1' },
          ':title': { S: 'Hello there' },
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
    const chained: SessionEntry[] = [
      { ...batch[0]!, parent_id: null },
      { ...batch[1]!, parent_id: batch[0]!.id },
    ];
    expect(input!.TransactItems![1]).toEqual({
      Put: {
        TableName: TABLE,
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': 'pk' },
        Item: {
          pk: { S: `SESSION#${SESSION}` },
          sk: { S: 'E#000000000000' },
          count: { N: '2' },
          batch_end: { BOOL: true },
          lines: {
            S: encodeBatchLines(chained)
              .map((line) => `${line}\n`)
              .join(''),
          },
        },
      },
    });
  });

  it('conditions the next append on the head and count this handle last saw', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const store = await newStore();
    const f = new RecordFactory('n');
    const first = f.user('one');
    await store.appendMessages([first]);
    await store.appendMessages([f.assistant('two')]);
    const update = transactions()[1]!.TransactItems![0]!.Update!;
    expect(update.ConditionExpression).toBe(
      'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_not_exists(#archived_at) AND #entry_count = :expected_count AND #head = :expected_head',
    );
    expect(update.ExpressionAttributeValues).toMatchObject({
      ':expected_head': { S: first.id },
      ':expected_count': { N: '1' },
    });
    expect(update.UpdateExpression).not.toContain('#title');
    expect(transactions()[1]!.TransactItems![1]!.Put!.Item!.sk).toEqual({ S: 'E#000000000001' });
  });

  it('maps ConditionalCheckFailed on the META update to SessionConflictError carrying the current head', async () => {
    const store = await newStore();
    const cause = canceled([{ Code: 'ConditionalCheckFailed', Item: oldMeta('someone-else', 7) }, { Code: 'ConditionalCheckFailed' }]);
    dynamo.on(TransactWriteItemsCommand).rejects(cause);
    const error = await store.appendMessages([new RecordFactory('c').user('late')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionConflictError);
    expect(error).toMatchObject({
      sessionId: SESSION,
      expected: { entryId: null, entryCount: 0 },
      current: { entryId: 'someone-else', entryCount: 7 },
    });
    expect((error as Error).cause).toBe(cause);
    expect(dynamo).toHaveReceivedCommandTimes(TransactWriteItemsCommand, 1);
    expect(store.metadata().entryCount).toBe(0);
  });

  it('maps a failed META condition on a missing, foreign or tombstoned META item to SessionNotFoundError', async () => {
    const store = await newStore();
    dynamo
      .on(TransactWriteItemsCommand)
      .rejectsOnce(canceled([{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }]))
      .rejectsOnce(canceled([{ Code: 'ConditionalCheckFailed', Item: oldMeta('h', 1, 'other') }, { Code: 'None' }]))
      .rejectsOnce(
        canceled([
          {
            Code: 'ConditionalCheckFailed',
            Item: { ...oldMeta('h', 1), deleted_at: { S: '2026-01-01T00:00:00.000Z' } },
          },
          { Code: 'None' },
        ]),
      );
    await expect(store.appendMessages([new RecordFactory('d').user('x')])).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.appendMessages([new RecordFactory('e').user('x')])).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.appendMessages([new RecordFactory('t').user('x')])).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('fences the appends of a leased store by its lease, and maps a lease another holder took to SessionLeaseLostError', async () => {
    const leaseId = 'lease-of-this-turn';
    dynamo.on(UpdateItemCommand).resolves({
      Attributes: {
        ...oldMeta('h0', 1),
        created_at: { S: NOW.toISOString() },
        updated_at: { S: NOW.toISOString() },
        header: { S: '{}\n' },
        lease_id: { S: leaseId },
      },
    });
    const { store, lease } = await DynamoStore.lease({
      client,
      tableName: TABLE,
      owner: OWNER,
      sessionId: SESSION,
      leaseMs: 30_000,
      clock: () => NOW,
    });
    const cause = canceled([{ Code: 'ConditionalCheckFailed', Item: { ...oldMeta('h0', 1), lease_id: { S: 'the-next-turn' } } }, { Code: 'None' }]);
    dynamo.on(TransactWriteItemsCommand).resolvesOnce({}).rejectsOnce(cause);
    const f = new RecordFactory('fenced');
    await store.appendMessages([f.user('mine')]);
    const update = transactions()[0]!.TransactItems![0]!.Update!;
    expect(update.ConditionExpression).toBe(
      'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_not_exists(#archived_at) AND #entry_count = :expected_count AND #head = :expected_head AND #lease_id = :lease_id',
    );
    expect(update.ExpressionAttributeValues).toMatchObject({ ':lease_id': { S: lease.leaseId } });
    expect(update.ExpressionAttributeNames).toMatchObject({ '#lease_id': 'lease_id' });
    // The head is still where this handle left it: only the lease moved on.
    const error = await store.appendMessages([f.assistant('too late')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionLeaseLostError);
    expect((error as Error).cause).toBe(cause);
    expect(store.metadata().entryCount).toBe(2);
  });

  it('does not fence the appends of a store that holds no lease', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const store = await newStore();
    await store.appendMessages([new RecordFactory('free').user('x')]);
    const update = transactions()[0]!.TransactItems![0]!.Update!;
    expect(update.ConditionExpression).not.toContain('lease');
    expect(update.ExpressionAttributeValues).not.toHaveProperty(':lease_id');
  });

  it('maps ConditionalCheckFailed on an entry put (META passed) to InvalidBatchError', async () => {
    const store = await newStore();
    const cause = canceled([{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }]);
    dynamo.on(TransactWriteItemsCommand).rejects(cause);
    const error = await store.appendMessages([new RecordFactory('p').user('x')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidBatchError);
    expect((error as Error).message).toContain('E#000000000000');
    expect((error as Error).cause).toBe(cause);
  });

  it('refuses a duplicate id within the batch or one the handle wrote before sending anything', async () => {
    dynamo.on(TransactWriteItemsCommand).resolves({});
    const store = await newStore();
    const f = new RecordFactory('dup');
    const first = f.user('a');
    await store.appendMessages([first]);
    await expect(store.appendMessages([{ ...f.assistant('b'), id: first.id }])).rejects.toBeInstanceOf(InvalidBatchError);
    const twice = f.assistant('c');
    await expect(store.appendMessages([twice, twice])).rejects.toBeInstanceOf(InvalidBatchError);
    expect(dynamo).toHaveReceivedCommandTimes(TransactWriteItemsCommand, 1);
  });

  it.each([
    ['a TransactionConflict cancellation', () => canceled([{ Code: 'TransactionConflict' }, { Code: 'None' }])],
    ['a ThrottlingError cancellation', () => canceled([{ Code: 'None' }, { Code: 'ThrottlingError' }])],
    ['ThrottlingException', () => new ThrottlingException({ message: 'slow down', $metadata: { httpStatusCode: 400 } })],
    ['ProvisionedThroughputExceededException', () => new ProvisionedThroughputExceededException({ message: 'too fast', $metadata: { httpStatusCode: 400 } })],
    ['InternalServerError (500)', () => new InternalServerError({ message: 'oops', $metadata: { httpStatusCode: 500 } })],
    ['an unnamed 503', () => Object.assign(new Error('unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } })],
  ])('retries %s with the same token, then rethrows the error untouched', async (_, make) => {
    const store = await newStore({ maxRetries: 2 });
    const errors = [make(), make(), make()];
    dynamo.on(TransactWriteItemsCommand).rejectsOnce(errors[0]).rejectsOnce(errors[1]).rejectsOnce(errors[2]);
    const error = await store.appendMessages([new RecordFactory('r').user('x')]).catch((e: unknown) => e);
    expect(error).toBe(errors[2]);
    const sent = transactions();
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((input) => input.ClientRequestToken)).size).toBe(1);
    expect(store.metadata().entryCount).toBe(0);
  });

  it('succeeds when a retry after contention goes through', async () => {
    const store = await newStore();
    dynamo
      .on(TransactWriteItemsCommand)
      .rejectsOnce(canceled([{ Code: 'TransactionConflict' }, { Code: 'None' }]))
      .resolves({});
    await store.appendMessages([new RecordFactory('ok').user('x')]);
    expect(dynamo).toHaveReceivedCommandTimes(TransactWriteItemsCommand, 2);
    expect(store.metadata().entryCount).toBe(1);
  });

  it('rethrows ValidationException untouched without retrying', async () => {
    const store = await newStore();
    const validation = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
      $metadata: { httpStatusCode: 400 },
    });
    dynamo.on(TransactWriteItemsCommand).rejects(validation);
    await expect(store.appendMessages([new RecordFactory('v').user('x')])).rejects.toBe(validation);
    expect(dynamo).toHaveReceivedCommandTimes(TransactWriteItemsCommand, 1);
  });

  it('retries an append whose answer was lost with the same token, so it lands once', async () => {
    const store = await newStore();
    const timeout = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    dynamo.on(TransactWriteItemsCommand).rejectsOnce(timeout).resolves({});
    await store.appendMessages([new RecordFactory('t').user('x')]);
    const sent = transactions();
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    expect(store.metadata().entryCount).toBe(1);
  });

  it("treats a conflict whose current head is this batch's last entry as its own earlier commit", async () => {
    const store = await newStore();
    const f = new RecordFactory('mine');
    const batch = [f.user('q'), f.assistant('a')];
    dynamo
      .on(TransactWriteItemsCommand)
      .rejectsOnce(Object.assign(new Error('timed out'), { name: 'TimeoutError' }))
      .rejectsOnce(canceled([{ Code: 'ConditionalCheckFailed', Item: oldMeta(batch[1]!.id, 2) }, { Code: 'ConditionalCheckFailed' }]));
    await store.appendMessages(batch);
    expect(store.metadata()).toMatchObject({ head: batch[1]!.id, entryCount: 2 });
  });

  it('treats IdempotentParameterMismatch as success only when META shows the batch committed', async () => {
    const store = await newStore();
    const f = new RecordFactory('idem');
    const batch = [f.user('q')];
    const mismatch = new IdempotentParameterMismatchException({
      message: 'mismatch',
      $metadata: { httpStatusCode: 400 },
    });
    dynamo.on(TransactWriteItemsCommand).rejects(mismatch);
    dynamo
      .on(GetItemCommand)
      .resolvesOnce({ Item: oldMeta('not-ours', 1) })
      .resolves({ Item: oldMeta(batch[0]!.id, 1) });
    await expect(store.appendMessages(batch)).rejects.toBe(mismatch);
    await store.appendMessages(batch);
    expect(dynamo).toHaveReceivedCommandWith(GetItemCommand, {
      ConsistentRead: true,
      Key: { pk: { S: `SESSION#${SESSION}` }, sk: { S: 'META' } },
    });
    expect(store.metadata().entryCount).toBe(1);
  });

  it('refuses a message over the item limit without S3 before sending anything', async () => {
    const store = await newStore();
    const f = new RecordFactory('big');
    const error = await store
      .appendMessages([
        f.message({
          role: 'tool_result',
          tool_call_id: 'c',
          tool_name: 'read',
          content: 'x'.repeat(400 * 1024),
          is_error: false,
        }),
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OffloadRequiredError);
    expect(dynamo).toHaveReceivedCommandTimes(TransactWriteItemsCommand, 0);
  });

  it('writes an oversized message to S3 under its SHA-256 before the transaction that points at it', async () => {
    const s3 = new S3Client({ region: 'us-east-1', credentials: fakeCredentials });
    const s3Mock = mockClient(s3);
    const order: string[] = [];
    s3Mock.on(PutObjectCommand).callsFake(async () => {
      order.push('s3');
      return {};
    });
    dynamo.on(TransactWriteItemsCommand).callsFake(async () => {
      order.push('dynamo');
      return {};
    });
    const store = await newStore({ s3 });
    const f = new RecordFactory('off');
    await store.appendMessages([
      f.message({
        role: 'tool_result',
        tool_call_id: 'c',
        tool_name: 'read',
        content: 'x'.repeat(400 * 1024),
        is_error: false,
      }),
    ]);
    expect(order).toEqual(['s3', 'dynamo']);
    const put = s3Mock.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(put).toMatchObject({
      Bucket: 'offloads',
      ContentType: 'application/x-ndjson',
      ServerSideEncryption: 'AES256',
    });
    expect(put.Key).toMatch(new RegExp(`^offload/${SESSION}/[0-9a-f]{64}\\.jsonl$`));
    const item = transactions()[0]!.TransactItems![1]!.Put!.Item!;
    expect(item.lines).toBeUndefined();
    expect(item).toMatchObject({ lines_bucket: { S: 'offloads' }, lines_ref: { S: put.Key }, count: { N: '1' } });
  });
});
