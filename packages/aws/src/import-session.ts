/**
 * Import: a JSONL session (an export, or an `FSJSONLStore` file) from S3 or a local file
 * into a new DynamoStore session, streamed line by line, keeping entry ids.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { ID_RULE, InvalidSessionIdError, newId } from '@panto/core';
import { encodeHeader, SessionDecoder, SessionLog } from '@panto/core/store-kit';
import { batchWriteAll } from './batch-write.js';
import { DynamoStore, metaItem } from './dynamo-store.js';
import { entryItem, type OffloadRef } from './entry-items.js';
import { OffloadRequiredError, SessionExistsError } from './errors.js';
import { CREATE_CONDITION, ENTRY_PUT_CONDITION, namesFor } from './expressions.js';
import { ItemPacker, type PendingItem } from './item-packer.js';
import { titleOf } from './metadata.js';
import { putOffload, type S3Location } from './offload.js';
import { deleteObjects } from './s3-objects.js';
import { assertValidOwner, ATTR, entrySk, errorName, isValidSessionId, sessionPk } from './table.js';

export interface ImportSessionOptions {
  dynamo: DynamoDBClient;
  tableName: string;
  owner: string;
  /** Reads an S3 source, and takes lines too big for a DynamoDB item (required for those). */
  s3?: S3Location;
  source: { bucket: string; key: string } | { file: string };
  /** The new session's id (default: a UUIDv7 from `ids`). The file's own id is not reused. */
  sessionId?: string;
  /** As for `DynamoStore.create`. */
  ttlSeconds?: number;
  clock?: () => Date;
  ids?: () => string;
}

/** Entry items written concurrently while importing. */
const PUT_CONCURRENCY = 4;

/**
 * Imports a session log as a new session of `owner`, keeping every entry (ids, parents,
 * timestamps, bytes of each line) and the header's creation time and cwd; the session gets
 * a new id. Entry items are written first and the META item last, so the session becomes
 * visible (to `open`, `listOwnerSessions`) only once it is whole. A corrupt line — not JSON, not
 * an entry, an id that is not an id, bytes that are not UTF-8 — fails the import with
 * `SessionCorruptError` naming the source and line, and whatever was written is removed
 * again. As when a file is opened, a torn last line and a last batch a crash cut
 * short are left out.
 *
 * @example
 * const store = await importSession({ dynamo, tableName, owner, s3, source: { file: 'session.jsonl' } });
 */
export async function importSession(options: ImportSessionOptions): Promise<DynamoStore> {
  const { dynamo, tableName, owner, s3 } = options;
  assertValidOwner(owner);
  const id = options.sessionId ?? (options.ids ?? newId)();
  if (!isValidSessionId(id)) throw new InvalidSessionIdError(id, `use ${ID_RULE}`);
  if (options.ttlSeconds !== undefined && !(Number.isInteger(options.ttlSeconds) && options.ttlSeconds > 0)) {
    throw new RangeError('ttlSeconds must be a positive integer');
  }
  const now = (options.clock ?? (() => new Date()))();
  const { name: sourceName, stream } = await openSource(options);
  const pk = sessionPk(id);

  const written: string[] = [];
  const refs: OffloadRef[] = [];
  let inFlight: Array<Promise<void>> = [];
  /** Every put started, so a failure waits for all of them before cleaning up. */
  const started: Array<Promise<void>> = [];
  const putItem = async (item: PendingItem): Promise<void> => {
    let ref: OffloadRef | null = null;
    if (item.offload) {
      if (s3 === undefined) {
        throw new OffloadRequiredError(id, item.bytes, `line ${item.firstLine} of ${sourceName} is a message of ${item.bytes} bytes, over the DynamoDB item limit; nothing was imported`);
      }
      ref = await putOffload(s3, id, item.text);
      refs.push(ref);
    }
    const sk = entrySk(item.index);
    try {
      await dynamo.send(
        new PutItemCommand({
          TableName: tableName,
          Item: entryItem({ pk, sk }, item, ref),
          ConditionExpression: ENTRY_PUT_CONDITION,
          ExpressionAttributeNames: namesFor(ENTRY_PUT_CONDITION),
        }),
      );
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new SessionExistsError(id, { cause: error });
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
    const decoder = new SessionDecoder(sourceName);
    const log = SessionLog.fromHead({ count: 0, leafId: null, resumeParent: null, activeModel: null });
    let title: string | null = null;
    for await (const batch of decoder.decode(stream)) {
      const { lines, entries, firstLine } = batch;
      for (let i = 0; i < lines.length; i++) await packer.add(lines[i]!, firstLine + i, i === lines.length - 1);
      log.commit(entries);
      for (const entry of entries) {
        if (title === null && entry.type === 'message' && entry.message.role === 'user') title = titleOf(entry.message.content);
      }
    }
    // A batch still open at the end was cut short by a crash and never acknowledged: left out.
    const { header } = decoder.end();
    await packer.flush();
    await Promise.all(inFlight.splice(0));

    const ttlSeconds = options.ttlSeconds ?? null;
    try {
      await dynamo.send(
        new PutItemCommand({
          TableName: tableName,
          Item: metaItem({
            id,
            owner,
            createdAt: header.timestamp,
            updatedAt: now.toISOString(),
            header: encodeHeader({ ...header, id }),
            ttlSeconds,
            expiresAt: ttlSeconds === null ? null : Math.floor(now.getTime() / 1000) + ttlSeconds,
            entryCount: log.count,
            head: log.leafId,
            nextParent: log.resumeParent,
            activeModel: log.activeModel,
            title,
            incarnation: randomUUID(),
          }),
          ConditionExpression: CREATE_CONDITION,
          ExpressionAttributeNames: namesFor(CREATE_CONDITION),
        }),
      );
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new SessionExistsError(id, { cause: error });
      throw error;
    }
  } catch (error) {
    await Promise.allSettled(started);
    await removeLeftovers(dynamo, tableName, pk, written, s3, refs);
    throw error;
  }
  return DynamoStore.open({
    client: dynamo,
    tableName,
    sessionId: id,
    owner,
    ...(s3 === undefined ? {} : { s3 }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
}

async function openSource(options: ImportSessionOptions): Promise<{ name: string; stream: AsyncIterable<Uint8Array> }> {
  const { source } = options;
  if ('file' in source) {
    const path = resolve(source.file);
    return { name: path, stream: createReadStream(path) };
  }
  if (options.s3 === undefined) throw new TypeError('importing from S3 needs the `s3` option (its client reads the source)');
  const response = await options.s3.client.send(new GetObjectCommand({ Bucket: source.bucket, Key: source.key }));
  return { name: `s3://${source.bucket}/${source.key}`, stream: (response.Body ?? []) as AsyncIterable<Uint8Array> };
}

/** Best effort: a failed import's items are invisible anyway (no META); this keeps the table clean. */
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
