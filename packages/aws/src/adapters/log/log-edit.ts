/**
 * Changing a log other than by appending: taking its newest entry off (`popFromLog`: the head
 * and the last item rewritten in one conditional transaction), clearing it (`clearLog`: one
 * conditional write moves where the live entries start past all of them, then the dead items
 * and their texts are deleted), and removing it (`removeLog`: cleared, then the head deleted
 * while nothing was appended since).
 */
import { randomUUID } from 'node:crypto';
import { DeleteItemCommand, QueryCommand, UpdateItemCommand, type AttributeValue, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { SessionConflictError } from '@panto/core/store-kit';
import { OffloadRequiredError } from '../../errors.js';
import { deleteObjects } from '../../s3/s3-objects.js';
import { batchWriteAll } from '../../table/batch-write.js';
import { namesFor } from '../../table/expressions.js';
import { isConditionalCheckFailed } from '../../table/sdk-errors.js';
import { ADAPTER_ATTR } from '../shared/adapter-attributes.js';
import {
  LOG_CLEAR_CONDITION,
  LOG_CLEAR_UNLIST_UPDATE,
  LOG_CLEAR_UPDATE,
  LOG_ENTRIES_BETWEEN,
  LOG_POP_CONDITION,
  LOG_POP_UPDATE,
  LOG_REMOVE_CONDITION,
} from '../shared/adapter-expressions.js';
import { logEntrySk } from '../shared/adapter-keys.js';
import { sendTransaction } from '../shared/transact.js';
import { parseLines, placeLines, readItemText, textItem } from '../shared/text-items.js';
import { queryItems, readHead } from './log-read.js';
import { decodeHead, expiryFrom, headKey, isExpired, itemSourceOf, type LogAddress, type LogContext, type LogView } from './log-types.js';

const POP_ATTEMPTS = 8;

/**
 * Takes the newest live entry off the log and returns it (parsed), or undefined when there
 * is none; the view after. A write by another handle between the read and the pop makes it
 * read and try again; `SessionConflictError` after {@link POP_ATTEMPTS} such tries.
 */
export async function popFromLog(context: LogContext, address: LogAddress): Promise<{ popped: unknown; view: LogView | null }> {
  for (let attempt = 0; attempt < POP_ATTEMPTS; attempt++) {
    const head = await readHead(context, address);
    const now = context.clock();
    if (head === null || isExpired(head.expiresAt, now)) return { popped: undefined, view: null };
    if (head.count === head.liveFrom) return { popped: undefined, view: { exists: true, count: head.count, liveFrom: head.liveFrom } };
    const [last] = await queryItems(context, address, head.liveFrom, head.count - 1, true, 1);
    if (last === undefined || isExpired(last.expiresAt, now)) return { popped: undefined, view: { exists: true, count: head.count, liveFrom: head.liveFrom } };
    if (last.index + last.count !== head.count) continue;
    const source = itemSourceOf(context, address, last.sk);
    const stored = await readItemText(last.item, context.s3?.client, source, address.home.name);
    const lines = stored.text.split('\n').slice(0, -1);
    const [popped] = parseLines(`${lines.pop()}\n`, 1, source, context.reviver);
    const rewrite = await rewriteLast(context, address, last.index, lines, now);
    const condition = LOG_POP_CONDITION;
    const result = await sendTransaction(
      context.client,
      {
        TransactItems: [
          {
            Update: {
              TableName: context.tableName,
              Key: headKey(address),
              UpdateExpression: LOG_POP_UPDATE,
              ConditionExpression: condition,
              ExpressionAttributeNames: namesFor(LOG_POP_UPDATE, condition),
              ExpressionAttributeValues: {
                ':expected_count': { N: String(head.count) },
                ':live_from': { N: String(head.liveFrom) },
                ':entry_count': { N: String(head.count - 1) },
                ':now': { S: now.toISOString() },
              },
            },
          },
          ...rewrite,
        ],
      },
      context.retry,
    );
    if (result.kind === 'conflict') continue;
    if (result.kind !== 'committed') throw result.error;
    // The old text's object was this item's alone (its key carries the tag of the write that made it).
    if (stored.ref !== null && context.s3 !== undefined) await deleteObjects(context.s3.client, [stored.ref]).catch(() => undefined);
    return { popped, view: { exists: true, count: head.count - 1, liveFrom: head.liveFrom } };
  }
  throw new SessionConflictError(address.home.name, { expected: { entryId: null }, current: { entryId: null } });
}

/** The writes that leave the last item holding `lines` (the popped one gone): deleted when none is left, else put again. */
async function rewriteLast(context: LogContext, address: LogAddress, index: number, lines: readonly string[], now: Date): Promise<TransactWriteItem[]> {
  const key = { [ADAPTER_ATTR.pk]: { S: address.pk }, [ADAPTER_ATTR.sk]: { S: logEntrySk(address.sub, index) } };
  if (lines.length === 0) return [{ Delete: { TableName: context.tableName, Key: key } }];
  const placed = await placeLines(address.home, lines, randomUUID());
  return placed.map((item, i) => ({
    Put: {
      TableName: context.tableName,
      // The remaining entries end the log: a batch, as far as a reader is concerned.
      Item: textItem(
        { pk: address.pk, sk: logEntrySk(address.sub, index + item.planned.index) },
        { ...item, planned: { ...item.planned, batchEnd: i === placed.length - 1 } },
        expiryFrom(context, now),
      ),
    },
  }));
}

/**
 * Clears the log: one conditional write makes every entry dead (new appends go after them),
 * then the dead items and their offloaded texts are deleted. `unlist` also takes the head out
 * of its listing. Returns the view after, or null when there is no log.
 */
export async function clearLog(context: LogContext, address: LogAddress, unlist = false): Promise<LogView | null> {
  const update = unlist ? LOG_CLEAR_UNLIST_UPDATE : LOG_CLEAR_UPDATE;
  let attributes: Record<string, AttributeValue> | undefined;
  try {
    ({ Attributes: attributes } = await context.client.send(
      new UpdateItemCommand({
        TableName: context.tableName,
        Key: headKey(address),
        UpdateExpression: update,
        ConditionExpression: LOG_CLEAR_CONDITION,
        ExpressionAttributeNames: namesFor(update, LOG_CLEAR_CONDITION),
        ExpressionAttributeValues: { ':now': { S: context.clock().toISOString() } },
        ReturnValues: 'ALL_NEW',
      }),
    ));
  } catch (error) {
    if (isConditionalCheckFailed(error)) return null;
    throw error;
  }
  const head = decodeHead(attributes);
  if (head === null) return null;
  await purgeBefore(context, address, head.liveFrom);
  return { exists: true, count: head.count, liveFrom: head.liveFrom };
}

/**
 * Removes the log: cleared and taken out of its listing, then its head deleted — unless
 * something was appended since the clear, which stays (a later append never lands on top of
 * dead items: their slots are behind `live_from`).
 */
export async function removeLog(context: LogContext, address: LogAddress): Promise<void> {
  const view = await clearLog(context, address, true);
  if (view === null) return;
  try {
    await context.client.send(
      new DeleteItemCommand({
        TableName: context.tableName,
        Key: headKey(address),
        ConditionExpression: LOG_REMOVE_CONDITION,
        ExpressionAttributeNames: namesFor(LOG_REMOVE_CONDITION),
        ExpressionAttributeValues: { ':entry_count': { N: String(view.count) } },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/** Deletes the log's entry items before index `end` (all dead), their offloaded texts first. Idempotent. */
async function purgeBefore(context: LogContext, address: LogAddress, end: number): Promise<void> {
  if (end <= 0) return;
  const keys: Array<Record<string, AttributeValue>> = [];
  const refs: Array<{ bucket: string; key: string }> = [];
  const projection = `#${ADAPTER_ATTR.pk}, #${ADAPTER_ATTR.sk}, #${ADAPTER_ATTR.linesBucket}, #${ADAPTER_ATTR.linesRef}`;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await context.client.send(
      new QueryCommand({
        TableName: context.tableName,
        KeyConditionExpression: LOG_ENTRIES_BETWEEN,
        ProjectionExpression: projection,
        ExpressionAttributeNames: namesFor(LOG_ENTRIES_BETWEEN, projection),
        ExpressionAttributeValues: {
          ':pk': { S: address.pk },
          ':from_sk': { S: logEntrySk(address.sub, 0) },
          ':to_sk': { S: logEntrySk(address.sub, end - 1) },
        },
        ConsistentRead: true,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    for (const item of page.Items ?? []) {
      keys.push({ [ADAPTER_ATTR.pk]: item[ADAPTER_ATTR.pk]!, [ADAPTER_ATTR.sk]: item[ADAPTER_ATTR.sk]! });
      const bucket = item[ADAPTER_ATTR.linesBucket]?.S;
      const key = item[ADAPTER_ATTR.linesRef]?.S;
      if (bucket !== undefined && key !== undefined) refs.push({ bucket, key });
    }
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  // Objects first: a purge cut short still finds the items that point at them next time.
  if (refs.length > 0) {
    if (context.s3 === undefined) throw new OffloadRequiredError(address.home.name, 0, 'entries being deleted are offloaded to S3');
    await deleteObjects(context.s3.client, refs);
  }
  await batchWriteAll(
    context.client,
    context.tableName,
    keys.map((Key) => ({ DeleteRequest: { Key } })),
  );
}
