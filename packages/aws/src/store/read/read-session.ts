/**
 * Reading a session back: one consistent, paginated Query over the session's partition
 * (entry items first, `META` last), offloaded texts fetched in parallel as their pointers
 * arrive, every line decoded with the session codec.
 */
import { QueryCommand, type AttributeValue, type DynamoDBClient, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import { SessionCorruptError, type SessionEntry } from '@panto/core/store-kit';
import { decodeStoredItem, type OffloadRef } from '../../entries/entry-item.js';
import { getOffload, type S3Location } from '../../entries/offload.js';
import { OffloadRequiredError } from '../../errors.js';
import { decodeMeta, type MetaRecord } from '../../meta/meta-item.js';
import { ATTR } from '../../table/attributes.js';
import { namesFor, QUERY_SESSION, QUERY_SESSION_FROM } from '../../table/expressions.js';
import { entrySk, itemSource, META_SK, sessionPk } from '../../table/keys.js';
import { sdkErrorName } from '../../table/sdk-errors.js';
import { decodePartial, PARTIAL_SK, type PartialAnswer } from '../../partial/partial-answer.js';
import { ItemSequence } from './item-sequence.js';

export interface ReadOptions {
  client: DynamoDBClient;
  tableName: string;
  sessionId: string;
  s3?: S3Location | undefined;
  /**
   * Read only the entries from this index on (default 0): a handle that already holds the
   * first `fromIndex` entries (a cache) reads what is new. Must be the first entry of an
   * append batch — an index a handle saw as the session's entry count.
   */
  fromIndex?: number;
}

export interface SessionRead {
  /** Null when the session has no META item (never created, or deleted). */
  meta: MetaRecord | null;
  /** The committed entries from `fromIndex` on, in log order. */
  entries: SessionEntry[];
  /** JSONL bytes of those entries, as stored. */
  bytes: number;
  /** Index of the first entry item that was missing, when the read stopped short of META's count. */
  missingAt: number | null;
  /** The partial answer item, when the read's range held one (see partial/partial-answer.ts; trust it only as `partialOfRunning` says). */
  partial: PartialAnswer | null;
}

/**
 * Reads a session: the entries up to the last complete batch that every earlier item is
 * there for, and no further than META's count (a transaction still landing while the
 * pages were read is left out). If the read stops short of META's count, it is read
 * once more; a gap that is still at the same place is a `SessionCorruptError`.
 */
export async function readSession(options: ReadOptions): Promise<SessionRead> {
  const first = await readOnce(options);
  // An archived session's items are going or gone: the caller restores it (see DynamoStore).
  if (first.missingAt === null || first.meta?.archivedAt != null) return first;
  const second = await readOnce(options);
  if (second.missingAt !== null && second.missingAt === first.missingAt && second.meta?.archivedAt == null) {
    const sk = entrySk(second.missingAt);
    throw new SessionCorruptError(
      itemSource(options.tableName, sessionPk(options.sessionId), sk),
      1,
      `entry item ${sk} is missing (META counts ${second.meta?.metadata.entryCount ?? '?'} entries)`,
    );
  }
  return second;
}

async function readOnce({ client, tableName, sessionId, s3, fromIndex = 0 }: ReadOptions): Promise<SessionRead> {
  const pk = sessionPk(sessionId);
  // From entry item `fromIndex` on; META ('META' sorts after every 'E#…') comes last either way.
  const keyCondition = fromIndex === 0 ? QUERY_SESSION : QUERY_SESSION_FROM;
  const query = (startKey: Record<string, AttributeValue> | undefined): Promise<QueryCommandOutput> =>
    client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: keyCondition,
        ExpressionAttributeNames: namesFor(keyCondition),
        ExpressionAttributeValues: {
          ':pk': { S: pk },
          ...(fromIndex === 0 ? {} : { ':from_sk': { S: entrySk(fromIndex) } }),
        },
        ConsistentRead: true,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
  const items = new ItemSequence(fromIndex);
  let meta: MetaRecord | null = null;
  let partial: PartialAnswer | null = null;
  let next: Promise<QueryCommandOutput> | undefined = query(undefined);
  while (next !== undefined) {
    const page: QueryCommandOutput = await next;
    // Ask for the next page before decoding this one, so decoding overlaps the round trip.
    next = page.LastEvaluatedKey === undefined ? undefined : query(page.LastEvaluatedKey);
    for (const raw of page.Items ?? []) {
      const sk = raw[ATTR.sk]?.S ?? '';
      const source = itemSource(tableName, pk, sk);
      if (sk === META_SK) {
        meta = decodeMeta(raw, source);
        continue;
      }
      if (sk === PARTIAL_SK) {
        partial = decodePartial(raw);
        continue;
      }
      const item = decodeStoredItem(raw, source);
      if (item.ref === null) {
        items.add(item, source, item.lines!);
        continue;
      }
      if (s3 === undefined) throw new OffloadRequiredError(sessionId, item.ref.bytes, `entry item ${sk} is offloaded to S3`);
      items.add(item, source, fetchText(s3, item.ref, source));
    }
    if (next !== undefined) await new Promise((resolve) => setImmediate(resolve)); // let the request go out
    await items.decodeReady();
  }
  return { meta, partial, ...items.end(meta) };
}

/**
 * An offloaded text, fetched now and decoded in turn. One that is gone counts as a missing
 * item (null): an archive removed it under this read (META, read last, says so), or — twice
 * at the same place — corruption.
 */
function fetchText(s3: S3Location, ref: OffloadRef, source: string): Promise<string | null> {
  const text = getOffload(s3.client, ref, source).catch((error: unknown) => {
    if (sdkErrorName(error) === 'NoSuchKey') return null;
    throw error;
  });
  text.catch(() => undefined); // awaited in order by decodeReady; this only silences an early rejection
  return text;
}
