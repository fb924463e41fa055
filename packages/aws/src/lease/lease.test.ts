import { ConditionalCheckFailedException, DynamoDBClient, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { SessionBusyError, SessionLeaseLostError, TurnNotRunningError } from '../errors.js';
import { acquireSessionLease } from './acquire-session-lease.js';
import { requestTurnStop } from './request-turn-stop.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

function failed(item?: Record<string, AttributeValue>): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: { httpStatusCode: 400 },
    ...(item ? { Item: item } : {}),
  });
}

/** The META item an UpdateItem with ReturnValues ALL_NEW gives back, with `extra` attributes. */
function meta(extra: Record<string, AttributeValue> = {}): Record<string, AttributeValue> {
  return {
    pk: { S: 'SESSION#s1' },
    sk: { S: 'META' },
    owner: { S: 'alice' },
    created_at: { S: '2026-01-01T00:00:00.000Z' },
    updated_at: { S: '2026-01-01T00:00:00.000Z' },
    entry_count: { N: '4' },
    header: { S: '{"type":"session","version":1,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z"}\n' },
    ...extra,
  };
}

function mocked(): { client: DynamoDBClient; mock: ReturnType<typeof mockClient> } {
  const client = new DynamoDBClient({ region: 'us-east-1', credentials });
  return { client, mock: mockClient(client) };
}

describe('acquireSessionLease (mocked DynamoDB)', () => {
  it('takes the lease with one conditional UpdateItem on META, which records when and where the turn began', async () => {
    const { client, mock } = mocked();
    mock.on(UpdateItemCommand).resolves({ Attributes: meta() });
    const lease = await acquireSessionLease({
      client,
      tableName: 't',
      owner: 'alice',
      sessionId: 's1',
      leaseMs: 30_000,
      now: () => 1_000,
    });
    expect(lease.expiresAt).toBe(31_000);
    expect(mock).toHaveReceivedCommandExactlyOnceWith(UpdateItemCommand, {
      TableName: 't',
      Key: { pk: { S: 'SESSION#s1' }, sk: { S: 'META' } },
      UpdateExpression:
        'SET #lease_id = :lease_id, #lease_expires_at = :lease_expires_at, #lease_started_at = :now, #lease_entry_count = #entry_count REMOVE #stop_requested',
      ConditionExpression:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND (attribute_not_exists(#lease_id) OR #lease_expires_at <= :now)',
      ExpressionAttributeValues: {
        ':owner': { S: 'alice' },
        ':now': { N: '1000' },
        ':lease_id': { S: lease.leaseId },
        ':lease_expires_at': { N: '31000' },
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    await lease.release();
    expect(mock).toHaveReceivedCommandWith(UpdateItemCommand, {
      UpdateExpression: 'REMOVE #lease_id, #lease_expires_at, #lease_started_at, #lease_entry_count, #stop_requested',
      ConditionExpression: '#lease_id = :lease_id',
      ExpressionAttributeValues: { ':lease_id': { S: lease.leaseId } },
    });
  });

  it('maps a failed condition to SessionBusyError when the owner holds a live lease, else SessionNotFoundError', async () => {
    const { client, mock } = mocked();
    mock
      .on(UpdateItemCommand)
      .rejectsOnce(failed({ owner: { S: 'alice' }, lease_id: { S: 'x' }, lease_expires_at: { N: '9000' } }))
      .rejectsOnce(failed({ owner: { S: 'bob' } }))
      .rejectsOnce(failed())
      // A tombstone (a delete in progress) whose turn still holds the lease: gone, not busy.
      .rejectsOnce(
        failed({
          owner: { S: 'alice' },
          lease_id: { S: 'x' },
          lease_expires_at: { N: '9000' },
          deleted_at: { S: '2026-01-01T00:00:00.000Z' },
        }),
      );
    const options = { client, tableName: 't', owner: 'alice', sessionId: 's1', leaseMs: 1000 };
    const busy = await acquireSessionLease(options).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(SessionBusyError);
    expect(busy).toMatchObject({ leaseExpiresAt: 9000, sessionId: 's1' });
    await expect(acquireSessionLease(options)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(acquireSessionLease(options)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(acquireSessionLease(options)).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('ignores a lost lease on release but rethrows other errors untouched', async () => {
    const { client, mock } = mocked();
    const throttled = Object.assign(new Error('slow'), { name: 'ThrottlingException' });
    mock.on(UpdateItemCommand).resolvesOnce({ Attributes: meta() }).rejectsOnce(failed()).rejectsOnce(throttled);
    const lease = await acquireSessionLease({ client, tableName: 't', owner: 'alice', sessionId: 's1', leaseMs: 1000 });
    await lease.release();
    await expect(lease.release()).rejects.toBe(throttled);
  });
});

describe('SessionLease.renew (mocked DynamoDB)', () => {
  it('pushes the expiry a full term past now with one conditional UpdateItem, and reads back a stop asked of this lease', async () => {
    const { client, mock } = mocked();
    let now = 1_000;
    const answers = [
      () => meta(),
      () => meta({ lease_id: { S: lease.leaseId }, stop_requested: { S: 'an-earlier-lease' } }),
      () => meta({ lease_id: { S: lease.leaseId }, stop_requested: { S: lease.leaseId } }),
    ];
    mock.on(UpdateItemCommand).callsFake(() => ({ Attributes: answers.shift()!() }));
    const lease = await acquireSessionLease({
      client,
      tableName: 't',
      owner: 'alice',
      sessionId: 's1',
      leaseMs: 30_000,
      now: () => now,
    });
    now = 11_000;
    expect(await lease.renew()).toEqual({ expiresAt: 41_000, stopRequested: false });
    expect(lease.expiresAt).toBe(41_000);
    expect(mock).toHaveReceivedNthCommandWith(UpdateItemCommand, 2, {
      TableName: 't',
      Key: { pk: { S: 'SESSION#s1' }, sk: { S: 'META' } },
      UpdateExpression: 'SET #lease_expires_at = :lease_expires_at',
      ConditionExpression: '#lease_id = :lease_id AND attribute_not_exists(#deleted_at)',
      ExpressionAttributeNames: {
        '#lease_expires_at': 'lease_expires_at',
        '#lease_id': 'lease_id',
        '#deleted_at': 'deleted_at',
      },
      ExpressionAttributeValues: { ':lease_id': { S: lease.leaseId }, ':lease_expires_at': { N: '41000' } },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    now = 21_000;
    expect(await lease.renew()).toEqual({ expiresAt: 51_000, stopRequested: true });
  });

  it('refuses with SessionLeaseLostError once another holder took the lease, SessionNotFoundError once the session is gone, and rethrows the rest untouched', async () => {
    const { client, mock } = mocked();
    const throttled = Object.assign(new Error('slow'), { name: 'ThrottlingException' });
    mock
      .on(UpdateItemCommand)
      .resolvesOnce({ Attributes: meta() })
      .rejectsOnce(failed(meta({ lease_id: { S: 'another-holder' }, lease_expires_at: { N: '99000' } })))
      .rejectsOnce(failed(meta({ deleted_at: { S: '2026-01-01T00:00:00.000Z' } })))
      .rejectsOnce(failed())
      .rejectsOnce(throttled);
    const lease = await acquireSessionLease({
      client,
      tableName: 't',
      owner: 'alice',
      sessionId: 's1',
      leaseMs: 30_000,
      now: () => 1_000,
    });
    const lost = await lease.renew().catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(SessionLeaseLostError);
    expect(lost).toMatchObject({ sessionId: 's1' });
    await expect(lease.renew()).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(lease.renew()).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(lease.renew()).rejects.toBe(throttled);
    expect(lease.expiresAt).toBe(31_000);
  });
});

describe('requestTurnStop (mocked DynamoDB)', () => {
  it('marks META with the live lease it stops, with one conditional UpdateItem, and returns that lease', async () => {
    const { client, mock } = mocked();
    mock.on(UpdateItemCommand).resolves({
      Attributes: meta({
        lease_id: { S: 'L1' },
        lease_expires_at: { N: '31000' },
        lease_started_at: { N: '1000' },
        lease_entry_count: { N: '4' },
        stop_requested: { S: 'L1' },
      }),
    });
    const lease = await requestTurnStop({ client, tableName: 't', owner: 'alice', sessionId: 's1', now: () => 5_000 });
    expect(lease).toEqual({ leaseId: 'L1', expiresAt: 31_000, startedAt: 1_000, firstEntry: 4, stopRequested: true });
    expect(mock).toHaveReceivedCommandExactlyOnceWith(UpdateItemCommand, {
      TableName: 't',
      Key: { pk: { S: 'SESSION#s1' }, sk: { S: 'META' } },
      UpdateExpression: 'SET #stop_requested = #lease_id',
      ConditionExpression:
        'attribute_exists(#pk) AND #owner = :owner AND attribute_not_exists(#deleted_at) AND attribute_exists(#lease_id) AND #lease_expires_at > :now',
      ExpressionAttributeValues: { ':owner': { S: 'alice' }, ':now': { N: '5000' } },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('answers TurnNotRunningError when no live lease holds, SessionNotFoundError for another owner, a tombstone or nothing', async () => {
    const { client, mock } = mocked();
    mock
      .on(UpdateItemCommand)
      .rejectsOnce(failed(meta()))
      .rejectsOnce(failed(meta({ lease_id: { S: 'L1' }, lease_expires_at: { N: '1000' } })))
      .rejectsOnce(failed(meta({ owner: { S: 'bob' }, lease_id: { S: 'L1' }, lease_expires_at: { N: '99000' } })))
      .rejectsOnce(failed(meta({ deleted_at: { S: '2026-01-01T00:00:00.000Z' } })))
      .rejectsOnce(failed());
    const options = { client, tableName: 't', owner: 'alice', sessionId: 's1', now: () => 5_000 };
    await expect(requestTurnStop(options)).rejects.toBeInstanceOf(TurnNotRunningError);
    await expect(requestTurnStop(options)).rejects.toBeInstanceOf(TurnNotRunningError);
    for (let i = 0; i < 3; i++) await expect(requestTurnStop(options)).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(requestTurnStop({ ...options, sessionId: '../x' })).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(mock).toHaveReceivedCommandTimes(UpdateItemCommand, 5);
  });
});
