/**
 * The entry items of a session written whole (an import, a fork): each put only if absent, a
 * few at a time, its text offloaded to S3 first when it is too big for an item. What was
 * written is remembered, so that a write that fails can remove it again.
 */
import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { entryItem, type OffloadRef } from '../entries/entry-item.js';
import type { PendingItem } from '../entries/item-packer.js';
import { putOffload, type S3Location } from '../entries/offload.js';
import { OffloadRequiredError, SessionExistsError } from '../errors.js';
import { deleteObjects } from '../s3/s3-objects.js';
import { ATTR } from '../table/attributes.js';
import { batchWriteAll } from '../table/batch-write.js';
import { ENTRY_PUT_CONDITION, namesFor } from '../table/expressions.js';
import { entrySk, sessionPk } from '../table/keys.js';
import { isConditionalCheckFailed } from '../table/sdk-errors.js';

/** Entry items written concurrently. */
const PUT_CONCURRENCY = 4;

export interface EntryWriterOptions {
  dynamo: DynamoDBClient;
  tableName: string;
  /** Takes texts too big for an item; without it such an item is an `OffloadRequiredError`. */
  s3: S3Location | undefined;
  /** Names the input in errors. */
  source: string;
  /** The session's id, once it is chosen (items are written only after the header has been read). */
  sessionId: () => Promise<string>;
  /** Tags the offloaded objects (see `putOffload`): the lines may be another session's too. */
  incarnation: string;
}

export class EntryWriter {
  readonly #options: EntryWriterOptions;
  /** Sort keys of the items written. */
  readonly #written: string[] = [];
  readonly #refs: OffloadRef[] = [];
  #inFlight: Array<Promise<void>> = [];
  /** Every put started, so a failure waits for all of them before cleaning up. */
  readonly #started: Array<Promise<void>> = [];

  constructor(options: EntryWriterOptions) {
    this.#options = options;
  }

  /** Starts the item's put; once {@link PUT_CONCURRENCY} are in flight, waits for them. */
  async write(item: PendingItem): Promise<void> {
    const put = this.#put(item);
    put.catch(() => undefined); // awaited with its group below, or on failure; this only silences an early rejection
    this.#started.push(put);
    this.#inFlight.push(put);
    if (this.#inFlight.length >= PUT_CONCURRENCY) {
      const group = this.#inFlight;
      this.#inFlight = [];
      await Promise.all(group);
    }
  }

  /** Waits for the puts in flight. */
  async drain(): Promise<void> {
    await Promise.all(this.#inFlight.splice(0));
  }

  /**
   * After a failure: waits for every put started, then removes what was written under
   * `sessionId` (none when the id was never chosen). Best effort: a failed write's items are
   * invisible anyway (no META); this keeps the table clean.
   */
  async removeWritten(sessionId: string | undefined): Promise<void> {
    await Promise.allSettled(this.#started);
    if (sessionId === undefined) return;
    const { dynamo, tableName, s3 } = this.#options;
    const pk = sessionPk(sessionId);
    // Best effort (see above): items and texts with no META are invisible, and the failure itself is the caller's.
    await batchWriteAll(
      dynamo,
      tableName,
      this.#written.map((sk) => ({ DeleteRequest: { Key: { [ATTR.pk]: { S: pk }, [ATTR.sk]: { S: sk } } } })),
    ).catch(() => undefined);
    // …and so are their offloaded texts.
    if (s3 !== undefined && this.#refs.length > 0) await deleteObjects(s3.client, this.#refs).catch(() => undefined);
  }

  async #put(item: PendingItem): Promise<void> {
    const { dynamo, tableName, s3, source, incarnation } = this.#options;
    const sessionId = await this.#options.sessionId();
    let ref: OffloadRef | null = null;
    if (item.offload) {
      if (s3 === undefined) {
        throw new OffloadRequiredError(
          sessionId,
          item.bytes,
          `line ${item.firstLine} of ${source} is a message of ${item.bytes} bytes, over the DynamoDB item limit; nothing was imported`,
        );
      }
      ref = await putOffload(s3, sessionId, item.text, incarnation);
      this.#refs.push(ref);
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
      if (isConditionalCheckFailed(error)) throw new SessionExistsError(sessionId, { cause: error });
      throw error;
    }
    this.#written.push(sk);
  }
}
