import { DynamoDBClient, QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SessionCorruptError, type SessionEntry } from '@panto/core';
import { encodeBatchLines } from '@panto/core/store-kit';
import { RecordFactory } from '@panto/core/testing';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../entries/offload.js';
import { readSession } from './read-session.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const PK = { S: 'SESSION#s1' };

function meta(count: number): Record<string, AttributeValue> {
  return {
    pk: PK,
    sk: { S: 'META' },
    owner: { S: 'alice' },
    created_at: { S: 'c' },
    updated_at: { S: 'u' },
    entry_count: { N: String(count) },
    header: { S: 'h\n' },
  };
}

function chain(n: number, tag: string, first = 0): SessionEntry[] {
  const f = new RecordFactory(tag);
  const entries: SessionEntry[] = [];
  for (let i = 0; i < n; i++) entries.push({ ...f.user(`m${first + i}`), parent_id: entries[i - 1]?.id ?? null });
  return entries;
}

function item(index: number, entries: SessionEntry[], batchEnd = true): Record<string, AttributeValue> {
  return {
    pk: PK,
    sk: { S: `E#${String(index).padStart(12, '0')}` },
    count: { N: String(entries.length) },
    batch_end: { BOOL: batchEnd },
    lines: {
      S: encodeBatchLines(entries)
        .map((line) => `${line}\n`)
        .join(''),
    },
  };
}

function setup(): { client: DynamoDBClient; dynamo: AwsClientStub<DynamoDBClient> } {
  const client = new DynamoDBClient({ region: 'us-east-1', credentials });
  return { client, dynamo: mockClient(client) };
}

describe('readSession (mocked AWS)', () => {
  it('reads every page with ConsistentRead and decodes the entries in order', async () => {
    const { client, dynamo } = setup();
    const entries = chain(3, 'p');
    dynamo
      .on(QueryCommand)
      .resolvesOnce({
        Items: [item(0, entries.slice(0, 2))],
        LastEvaluatedKey: { pk: PK, sk: { S: 'E#000000000000' } },
      })
      .resolvesOnce({ Items: [item(2, entries.slice(2)), meta(3)] });
    const read = await readSession({ client, tableName: 't', sessionId: 's1' });
    expect(read.entries.map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id));
    expect(dynamo).toHaveReceivedCommandTimes(QueryCommand, 2);
    expect(dynamo).toHaveReceivedNthCommandWith(QueryCommand, 1, {
      KeyConditionExpression: '#pk = :pk',
      ConsistentRead: true,
      ExpressionAttributeValues: { ':pk': PK },
    });
    expect(dynamo).toHaveReceivedNthCommandWith(QueryCommand, 2, {
      ExclusiveStartKey: { pk: PK, sk: { S: 'E#000000000000' } },
    });
  });

  it('fetches offloaded texts in parallel: one GetObject each, started while later pages are read', async () => {
    const { client, dynamo } = setup();
    const s3 = new S3Client({ region: 'us-east-1', credentials });
    const s3Mock = mockClient(s3);
    const entries = chain(3, 'o');
    const texts = entries.map((_, i) =>
      encodeBatchLines([entries[i]!])
        .map((line) => `${line}\n`)
        .join(''),
    );
    const offloaded = (index: number): Record<string, AttributeValue> => ({
      pk: PK,
      sk: { S: `E#${String(index).padStart(12, '0')}` },
      count: { N: '1' },
      batch_end: { BOOL: true },
      lines_bucket: { S: 'b' },
      lines_ref: { S: `k${index}` },
      lines_bytes: { N: String(Buffer.byteLength(texts[index]!)) },
      lines_sha256: { S: sha256Hex(texts[index]!) },
    });
    const events: string[] = [];
    let open = 0;
    let maxOpen = 0;
    s3Mock.on(GetObjectCommand).callsFake(async (input: { Key: string }) => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      events.push(`get ${input.Key}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      open--;
      const index = Number(input.Key.slice(1));
      const bytes = new Uint8Array(Buffer.from(texts[index]!));
      return { Body: { transformToByteArray: async () => bytes } as never };
    });
    let queries = 0;
    dynamo.on(QueryCommand).callsFake(async () => {
      const page = ++queries;
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push(`page ${page} answered`);
      return page === 1
        ? { Items: [offloaded(0), offloaded(1)], LastEvaluatedKey: { pk: PK, sk: { S: 'E#000000000001' } } }
        : { Items: [offloaded(2), meta(3)] };
    });
    const read = await readSession({ client, tableName: 't', sessionId: 's1', s3: { client: s3, bucket: 'b' } });
    expect(read.entries.map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id));
    expect(s3Mock).toHaveReceivedCommandTimes(GetObjectCommand, 3);
    // The first page's texts are on their way while the second page is still being read.
    expect(events.indexOf('get k0')).toBeLessThan(events.indexOf('page 2 answered'));
    expect(events.indexOf('get k1')).toBeLessThan(events.indexOf('page 2 answered'));
    expect(maxOpen).toBeGreaterThan(1);
  });

  it('names the item and line of a corrupt line', async () => {
    const { client, dynamo } = setup();
    const good = item(0, chain(2, 'c'));
    const bad = { ...good, lines: { S: `${good.lines!.S!.split('\n')[0]}\n{"type":"message"\n` } };
    dynamo.on(QueryCommand).resolves({ Items: [bad, meta(2)] });
    const error = await readSession({ client, tableName: 'tbl', sessionId: 's1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect(error).toMatchObject({ source: 'dynamodb:tbl/SESSION#s1/E#000000000000', line: 2 });
  });

  it('leaves out a transaction that was only partly visible to the read, and reads again', async () => {
    const { client, dynamo } = setup();
    const entries = chain(4, 'v');
    // First read: the second batch's first item is there, its last item and META's count not yet.
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [item(0, entries.slice(0, 2)), item(2, entries.slice(2, 3), false), meta(4)] })
      .resolvesOnce({
        Items: [item(0, entries.slice(0, 2)), item(2, entries.slice(2, 3), false), item(3, entries.slice(3)), meta(4)],
      });
    const read = await readSession({ client, tableName: 't', sessionId: 's1' });
    expect(read.entries).toHaveLength(4);
    expect(dynamo).toHaveReceivedCommandTimes(QueryCommand, 2);
  });

  it('reports an entry item missing on two reads as SessionCorruptError', async () => {
    const { client, dynamo } = setup();
    const entries = chain(3, 'g');
    dynamo.on(QueryCommand).resolves({ Items: [item(0, entries.slice(0, 1)), item(2, entries.slice(2)), meta(3)] });
    const error = await readSession({ client, tableName: 't', sessionId: 's1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect((error as Error).message).toContain('E#000000000001 is missing');
  });
});
