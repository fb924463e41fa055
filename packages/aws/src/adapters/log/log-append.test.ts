import { DynamoDBClient, TransactionCanceledException, TransactWriteItemsCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { InvalidBatchError, SessionConflictError } from '@panto/core/store-kit';
import { describe, expect, it } from 'vitest';
import { appendToLog, MAX_APPEND_ATTEMPTS } from './log-append.js';
import { type LogAddress, type LogContext, UNSEEN } from './log-types.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const address: LogAddress = { pk: 'OPENAI#s', sub: '', home: { s3: undefined, objectId: 'openai/s', name: 'openai:s' } };

function setup(): { context: LogContext; mock: ReturnType<typeof mockClient> } {
  const client = new DynamoDBClient({ region: 'us-east-1', credentials, maxAttempts: 1 });
  const context: LogContext = {
    client,
    tableName: 'panto',
    s3: undefined,
    clock: () => new Date('2027-01-01T00:00:00.000Z'),
    ttlSeconds: null,
    retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 },
  };
  return { context, mock: mockClient(client) };
}

/** A cancelled transaction whose head condition failed, with the head as it is. */
function headMoved(head: Record<string, AttributeValue> | undefined): TransactionCanceledException {
  return new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: [{ Code: 'ConditionalCheckFailed', ...(head === undefined ? {} : { Item: head }) }, { Code: 'None' }],
  });
}

describe('appendToLog (mocked DynamoDB)', () => {
  it('sends one transaction: the head moved from the count it saw, each entry item put only if absent', async () => {
    const { context, mock } = setup();
    mock.on(TransactWriteItemsCommand).resolves({});
    const view = await appendToLog(context, address, { exists: true, count: 3, liveFrom: 1 }, { lines: ['{"a":1}', '{"b":2}'], hash: null });
    expect(view).toEqual({ exists: true, count: 5, liveFrom: 1 });
    expect(mock).toHaveReceivedCommandTimes(TransactWriteItemsCommand, 1);
    const input = mock.commandCalls(TransactWriteItemsCommand)[0]!.args[0].input;
    const [head, entry] = input.TransactItems!;
    expect(head?.Update?.ConditionExpression).toBe('#entry_count = :expected_count');
    expect(head?.Update?.UpdateExpression).toBe(
      'SET #entry_count = :entry_count, #live_from = if_not_exists(#live_from, :zero), #created_at = if_not_exists(#created_at, :now), #updated_at = :now REMOVE #last_batch',
    );
    expect(head?.Update?.ExpressionAttributeValues?.[':expected_count']).toEqual({ N: '3' });
    expect(entry?.Put?.Item?.sk).toEqual({ S: 'E##000000000003' });
    expect(entry?.Put?.Item?.lines).toEqual({ S: '{"a":1}\n{"b":2}\n' });
    expect(entry?.Put?.ConditionExpression).toBe('attribute_not_exists(#pk)');
    expect(input.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('appends after the count another writer left, learned from the failed condition, without reading', async () => {
    const { context, mock } = setup();
    mock
      .on(TransactWriteItemsCommand)
      .rejectsOnce(headMoved({ entry_count: { N: '9' }, live_from: { N: '0' } }))
      .resolves({});
    expect(await appendToLog(context, address, UNSEEN, { lines: ['{}'], hash: null })).toEqual({ exists: true, count: 10, liveFrom: 0 });
    const second = mock.commandCalls(TransactWriteItemsCommand)[1]!.args[0].input;
    expect(second.TransactItems?.[0]?.Update?.ExpressionAttributeValues?.[':expected_count']).toEqual({ N: '9' });
    expect(second.TransactItems?.[1]?.Put?.Item?.sk).toEqual({ S: 'E##000000000009' });
  });

  it('writes nothing when the head shows this very batch as the last one (a resend)', async () => {
    const { context, mock } = setup();
    mock.on(TransactWriteItemsCommand).rejects(headMoved({ entry_count: { N: '4' }, live_from: { N: '0' }, last_batch: { S: 'h1' } }));
    expect(await appendToLog(context, address, { exists: true, count: 3, liveFrom: 0 }, { lines: ['{}'], hash: 'h1' })).toEqual({
      exists: true,
      count: 4,
      liveFrom: 0,
    });
    expect(mock).toHaveReceivedCommandTimes(TransactWriteItemsCommand, 1);
  });

  it(`gives up with SessionConflictError after ${MAX_APPEND_ATTEMPTS} lost races, having written nothing`, async () => {
    const { context, mock } = setup();
    let count = 0;
    mock.on(TransactWriteItemsCommand).callsFake(() => {
      throw headMoved({ entry_count: { N: String(++count) }, live_from: { N: '0' } });
    });
    await expect(appendToLog(context, address, UNSEEN, { lines: ['{}'], hash: null })).rejects.toBeInstanceOf(SessionConflictError);
    expect(mock).toHaveReceivedCommandTimes(TransactWriteItemsCommand, MAX_APPEND_ATTEMPTS);
  });

  it('retries a throttled transaction under the same token, and rethrows ValidationException untouched', async () => {
    const { context, mock } = setup();
    const throttled = new TransactionCanceledException({
      message: 'cancelled',
      $metadata: { httpStatusCode: 400 },
      CancellationReasons: [{ Code: 'ThrottlingError' }, { Code: 'None' }],
    });
    mock.on(TransactWriteItemsCommand).rejectsOnce(throttled).resolves({});
    await appendToLog(context, address, UNSEEN, { lines: ['{}'], hash: null });
    const [first, second] = mock.commandCalls(TransactWriteItemsCommand).map((call) => call.args[0].input.ClientRequestToken);
    expect(second).toBe(first);

    const invalid = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
      $metadata: { httpStatusCode: 400 },
    });
    mock.reset();
    mock.on(TransactWriteItemsCommand).rejects(invalid);
    await expect(appendToLog(context, address, UNSEEN, { lines: ['{}'], hash: null })).rejects.toBe(invalid);
  });

  it('refuses with InvalidBatchError when an entry slot is taken though the head did not move', async () => {
    const { context, mock } = setup();
    mock.on(TransactWriteItemsCommand).rejects(
      new TransactionCanceledException({
        message: 'cancelled',
        $metadata: { httpStatusCode: 400 },
        CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
      }),
    );
    await expect(appendToLog(context, address, { exists: true, count: 1, liveFrom: 0 }, { lines: ['{}'], hash: null })).rejects.toBeInstanceOf(
      InvalidBatchError,
    );
  });
});
