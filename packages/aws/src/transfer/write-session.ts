/**
 * Writing a whole session log as a new session: the one path by which an import and a fork
 * make a session. Lines are streamed through core's `SessionDecoder`, packed into entry
 * items (each put only if absent), and the META item goes last — until then nothing can see
 * the session. A failure removes what was written.
 */
import { randomUUID } from 'node:crypto';
import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { InvalidSessionIdError, ID_RULE, type ActiveModel, type SessionEntry, type SessionHeader } from '@panto/core';
import { encodeHeader, SessionDecoder, SessionLog, type LineRules } from '@panto/core/store-kit';
import { batchWriteAll } from '../table/batch-write.js';
import { entryItem, type OffloadRef } from '../entries/entry-item.js';
import { ItemPacker, type PendingItem } from '../entries/item-packer.js';
import { OffloadRequiredError, SessionExistsError } from '../errors.js';
import { CREATE_CONDITION, ENTRY_PUT_CONDITION, namesFor } from '../table/expressions.js';
import { metaItem, titleOf } from '../meta/meta-item.js';
import { putOffload, type S3Location } from '../entries/offload.js';
import { deleteObjects } from './s3-objects.js';
import { ATTR, entrySk, errorName, isValidSessionId, sessionPk } from '../table/keys.js';

export interface WriteSessionOptions {
  dynamo: DynamoDBClient;
  tableName: string;
  owner: string;
  /** Takes lines too big for a DynamoDB item (required for those). */
  s3: S3Location | undefined;
  /** Names the input in a `SessionCorruptError`. */
  source: string;
  /** The session log: a header line, then entry lines. */
  stream: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;
  /** The new session's id, chosen once the header is read (e.g. the header's own), before any item is written. */
  sessionId: (header: SessionHeader) => string | Promise<string>;
  /** Expire the session this long after `now`; never when null. */
  ttlSeconds: number | null;
  now: Date;
  /** `incoming` for a log entering panto (an import), `stored` for one panto wrote (a fork): see core's `LineRules`. */
  rules: LineRules;
  /** The model the session uses while none of its active path's entries names one (a fork of the part before the first turn). */
  defaultModel?: ActiveModel | null;
}

/** Entry items written concurrently. */
const PUT_CONCURRENCY = 4;

/**
 * Writes the log as a new session of `owner` and returns its id. Lines are kept byte for
 * byte; the header keeps its version, creation time and cwd, with the new id. A corrupt
 * line (for an import also one nested deeper than `MAX_ENTRY_DEPTH`, or with a time that is not ISO 8601) is a `SessionCorruptError` naming the source and line; a taken id a
 * `SessionExistsError`; either way what was written is removed again.
 */
export async function writeSession(options: WriteSessionOptions): Promise<string> {
  const { dynamo, tableName, owner, s3 } = options;
  const decoder = new SessionDecoder(options.source, { rules: options.rules });
  /** Tags this write's offloaded objects (see putOffload): the lines may be another session's too. */
  const incarnation = randomUUID();
  let id: string | undefined;
  let choosing: Promise<string> | undefined;
  /** The id, decided once (concurrent puts wait for the same choice): items are written only after the header has been read. */
  const idOf = (header: SessionHeader | undefined): Promise<string> => {
    choosing ??= (async () => {
      if (header === undefined) throw new TypeError('the session id is needed before the header was read');
      const chosen = await options.sessionId(header);
      if (!isValidSessionId(chosen)) throw new InvalidSessionIdError(chosen, `use ${ID_RULE}`);
      id = chosen;
      return chosen;
    })();
    return choosing;
  };

  const written: string[] = [];
  const refs: OffloadRef[] = [];
  let inFlight: Array<Promise<void>> = [];
  /** Every put started, so a failure waits for all of them before cleaning up. */
  const started: Array<Promise<void>> = [];
  const putItem = async (item: PendingItem): Promise<void> => {
    const sessionId = await idOf(decoder.header);
    let ref: OffloadRef | null = null;
    if (item.offload) {
      if (s3 === undefined) {
        throw new OffloadRequiredError(
          sessionId,
          item.bytes,
          `line ${item.firstLine} of ${options.source} is a message of ${item.bytes} bytes, over the DynamoDB item limit; nothing was imported`,
        );
      }
      ref = await putOffload(s3, sessionId, item.text, incarnation);
      refs.push(ref);
    }
    const sk = entrySk(item.index);
    try {
      await dynamo.send(
        new PutItemCommand({
          TableName: tableName,
          Item: entryItem({ pk: sessionPk(sessionId), sk }, item, ref),
          ConditionExpression: ENTRY_PUT_CONDITION,
          ExpressionAttributeNames: namesFor(ENTRY_PUT_CONDITION),
        }),
      );
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new SessionExistsError(sessionId, { cause: error });
      throw error;
    }
    written.push(sk);
  };
  const write = async (item: PendingItem): Promise<void> => {
    const put = putItem(item);
    put.catch(() => undefined); // awaited with its group below, or on failure; this only silences an early rejection
    started.push(put);
    inFlight.push(put);
    if (inFlight.length >= PUT_CONCURRENCY) {
      const batch = inFlight;
      inFlight = [];
      await Promise.all(batch);
    }
  };

  try {
    const packer = new ItemPacker(write);
    // The log's framing is core's one decoder; this loop only packs what it commits.
    const committed: SessionEntry[] = [];
    let title: string | null = null;
    for await (const batch of decoder.decode(options.stream)) {
      const { lines, entries, firstLine } = batch;
      for (let i = 0; i < lines.length; i++) await packer.add(lines[i]!, firstLine + i, i === lines.length - 1);
      // Every batch ends an item, as an append's do: a reader that holds the first N entries
      // (a cache) reads on from the item E#N.
      await packer.flush();
      for (const entry of entries) {
        committed.push(entry);
        if (title === null && entry.type === 'message' && entry.message.role === 'user') title = titleOf(entry.message.content);
      }
    }
    // A batch still open at the end was cut short by a crash and never acknowledged: left out.
    const { header } = decoder.end();
    // What META says of the entries (head, next parent, model) is what a load of them says.
    const log = SessionLog.of(committed, options.source);
    const sessionId = await idOf(header);
    await packer.flush();
    await Promise.all(inFlight.splice(0));

    const { ttlSeconds, now } = options;
    try {
      await dynamo.send(
        new PutItemCommand({
          TableName: tableName,
          Item: metaItem({
            id: sessionId,
            owner,
            createdAt: header.timestamp,
            updatedAt: now.toISOString(),
            header: encodeHeader({ ...header, id: sessionId }),
            ttlSeconds,
            expiresAt: ttlSeconds === null ? null : Math.floor(now.getTime() / 1000) + ttlSeconds,
            entryCount: log.count,
            head: log.leafId,
            nextParent: log.resumeParent,
            activeModel: log.activeModel ?? options.defaultModel ?? null,
            title,
            incarnation,
          }),
          ConditionExpression: CREATE_CONDITION,
          ExpressionAttributeNames: namesFor(CREATE_CONDITION),
        }),
      );
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new SessionExistsError(sessionId, { cause: error });
      throw error;
    }
    return sessionId;
  } catch (error) {
    await Promise.allSettled(started);
    if (id !== undefined) await removeLeftovers(dynamo, tableName, sessionPk(id), written, s3, refs);
    throw error;
  }
}

/** Best effort: a failed write's items are invisible anyway (no META); this keeps the table clean. */
async function removeLeftovers(
  dynamo: DynamoDBClient,
  tableName: string,
  pk: string,
  written: readonly string[],
  s3: S3Location | undefined,
  refs: readonly OffloadRef[],
): Promise<void> {
  await batchWriteAll(
    dynamo,
    tableName,
    written.map((sk) => ({ DeleteRequest: { Key: { [ATTR.pk]: { S: pk }, [ATTR.sk]: { S: sk } } } })),
  ).catch(() => undefined);
  if (s3 !== undefined && refs.length > 0) await deleteObjects(s3.client, refs).catch(() => undefined);
}
