import { BatchGetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionCorruptError } from '@panto/core';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { listedMetadata, listedSessions } from './listed-metadata.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

/** A `byOwner` index item as the INCLUDE projection holds it. */
function indexItem(id: string, listed: { count: number; head?: string } | null) {
  return {
    pk: { S: `SESSION#${id}` },
    sk: { S: 'META' },
    gsi1pk: { S: 'OWNER#alice' },
    gsi1sk: { S: `2026-12-02T10:00:00.000Z#${id}` },
    owner: { S: 'alice' },
    created_at: { S: '2026-12-02T09:00:00.000Z' },
    updated_at: { S: '2026-12-02T10:00:00.000Z' },
    title: { S: `about ${id}` },
    active_provider: { S: 'anthropic' },
    active_model: { S: 'claude' },
    ...(listed === null ? {} : { listed_count: { N: String(listed.count) }, ...(listed.head === undefined ? {} : { listed_head: { S: listed.head } }) }),
  };
}

/** The whole META item of a session, as the table holds it. */
function metaItem(id: string, extra: Record<string, { S: string }> = {}) {
  return { ...indexItem(id, null), entry_count: { N: '7' }, head: { S: 'e7' }, header: { S: '{"type":"session"}\n' }, ...extra };
}

describe('what a session list shows of an index item', () => {
  it('takes the count and head from the listed log, not from the log a running turn moved', () => {
    expect(listedMetadata(indexItem('s1', { count: 4, head: 'e4' }), 'src')).toEqual({
      id: 's1',
      owner: 'alice',
      createdAt: '2026-12-02T09:00:00.000Z',
      updatedAt: '2026-12-02T10:00:00.000Z',
      entryCount: 4,
      head: 'e4',
      activeModel: { provider: 'anthropic', model: 'claude' },
      title: 'about s1',
      archived: false,
    });
    expect(listedMetadata(indexItem('s2', { count: 0 }), 'src')).toMatchObject({ entryCount: 0, head: null });
  });

  it('says an item from before the listed log needs its META read, and refuses a malformed one', () => {
    expect(listedMetadata(indexItem('s1', null), 'src')).toBeNull();
    expect(() => listedMetadata({ ...indexItem('s1', { count: 1 }), listed_count: { N: '-1' } }, 'src')).toThrow(SessionCorruptError);
    const { owner: _owner, ...ownerless } = indexItem('s1', { count: 1 });
    expect(() => listedMetadata(ownerless, 'src')).toThrow(SessionCorruptError);
  });

  it('reads the METAs of the items from before the listed log in one batch, in list order, dropping one deleted meanwhile', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', credentials });
    const mock = mockClient(client);
    mock
      .on(BatchGetItemCommand)
      .resolvesOnce({ Responses: { t: [metaItem('old2')] }, UnprocessedKeys: { t: { Keys: [{ pk: { S: 'SESSION#old1' }, sk: { S: 'META' } }] } } })
      .resolvesOnce({ Responses: { t: [metaItem('old1')] } });
    const gone = indexItem('gone', null);
    mock.on(BatchGetItemCommand, { RequestItems: { t: { Keys: [{ pk: { S: 'SESSION#gone' }, sk: { S: 'META' } }] } } }).resolves({});
    const items = [indexItem('new', { count: 2, head: 'e2' }), indexItem('old1', null), indexItem('old2', null)];
    const listed = await listedSessions(client, 't', items);
    expect(listed.map(({ item, metadata }) => [item.pk?.S, metadata.id, metadata.entryCount])).toEqual([
      ['SESSION#new', 'new', 2],
      ['SESSION#old1', 'old1', 7],
      ['SESSION#old2', 'old2', 7],
    ]);
    expect(mock).toHaveReceivedCommandTimes(BatchGetItemCommand, 2);
    expect(await listedSessions(client, 't', [gone])).toEqual([]);
    mock.reset();
    mock.on(BatchGetItemCommand).resolves({ Responses: { t: [metaItem('tomb', { deleted_at: { S: '2026-12-02T11:00:00.000Z' } })] } });
    expect(await listedSessions(client, 't', [indexItem('tomb', null)])).toEqual([]);
  });
});
