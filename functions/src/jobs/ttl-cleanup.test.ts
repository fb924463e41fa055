import { describe, expect, it } from 'vitest';
import { ttlCleanupHandler, ttlExpiredSessionId, type DynamoDBStreamRecord } from './ttl-cleanup.js';

const TTL = { type: 'Service', principalId: 'dynamodb.amazonaws.com' };

/** A stream record: by default TTL's REMOVE of session s-1's META; `identity: null` for a user's delete (no userIdentity). */
function record(
  overrides: Pick<DynamoDBStreamRecord, 'eventName'> & { pk?: string; sk?: string; seq?: string; identity?: DynamoDBStreamRecord['userIdentity'] | null },
): DynamoDBStreamRecord {
  const { eventName = 'REMOVE', pk = 'SESSION#s-1', sk = 'META', seq = '100', identity = TTL } = overrides;
  return {
    eventName,
    ...(identity === null ? {} : { userIdentity: identity }),
    dynamodb: { Keys: { pk: { S: pk }, sk: { S: sk } }, SequenceNumber: seq },
  };
}

/** A handler whose purge records the sessions it was asked for, failing for those in `failing`. */
function recordingHandler(failing: ReadonlySet<string> = new Set()) {
  const purged: string[] = [];
  const logged: string[] = [];
  const handler = ttlCleanupHandler({
    purge: async (sessionId) => {
      purged.push(sessionId);
      if (failing.has(sessionId)) throw new Error(`purge of ${sessionId} failed`);
      return { purged: true, items: 1, offloads: 0 };
    },
    log: (message) => void logged.push(message),
  });
  return { handler, purged, logged };
}

describe('ttlExpiredSessionId', () => {
  it('names the session of a META item TTL removed', () => {
    expect(ttlExpiredSessionId(record({}))).toBe('s-1');
  });

  it.each([
    ['a delete by a user (no userIdentity)', record({ identity: null })],
    ['a delete by another service', record({ identity: { type: 'Service', principalId: 'lambda.amazonaws.com' } })],
    ['an INSERT', record({ eventName: 'INSERT' })],
    ['a MODIFY', record({ eventName: 'MODIFY' })],
    ['an entry item removed by TTL', record({ sk: 'E#000000000000' })],
    ['an item outside any session', record({ pk: 'OWNER#alice' })],
    ['a session key with an invalid id', record({ pk: 'SESSION#../x' })],
    ['a record without keys', { eventName: 'REMOVE', userIdentity: TTL, dynamodb: {} } satisfies DynamoDBStreamRecord],
  ])('ignores %s', (_, streamRecord) => {
    expect(ttlExpiredSessionId(streamRecord)).toBeNull();
  });
});

describe('ttlCleanupHandler', () => {
  it('purges each TTL-expired session of the batch, in order, and ignores every other record', async () => {
    const { handler, purged } = recordingHandler();
    const result = await handler({
      Records: [
        record({ pk: 'SESSION#a', seq: '1' }),
        record({ pk: 'SESSION#user-deleted', identity: null, seq: '2' }),
        record({ pk: 'SESSION#new', eventName: 'INSERT', seq: '3' }),
        record({ pk: 'SESSION#appended', eventName: 'MODIFY', seq: '4' }),
        record({ pk: 'SESSION#entry', sk: 'E#000000000003', seq: '5' }),
        record({ pk: 'SESSION#b', seq: '6' }),
      ],
    });
    expect(purged).toEqual(['a', 'b']);
    expect(result).toEqual({ batchItemFailures: [] });
  });

  it('stops at the first failed purge and reports that record, so Lambda retries from it', async () => {
    const { handler, purged, logged } = recordingHandler(new Set(['b']));
    const result = await handler({
      Records: [record({ pk: 'SESSION#a', seq: '1' }), record({ pk: 'SESSION#b', seq: '2' }), record({ pk: 'SESSION#c', seq: '3' })],
    });
    expect(purged).toEqual(['a', 'b']);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(logged).toEqual(['purging expired session b failed']);
  });

  it('fails the whole batch when the failed record has no sequence number to report', async () => {
    const { handler } = recordingHandler(new Set(['a']));
    const unnamed: DynamoDBStreamRecord = { eventName: 'REMOVE', userIdentity: TTL, dynamodb: { Keys: { pk: { S: 'SESSION#a' }, sk: { S: 'META' } } } };
    await expect(handler({ Records: [unnamed] })).rejects.toThrow('purge of a failed');
  });
});
