/**
 * Appending a batch to a log: its texts offloaded first (if any must be), then one
 * `TransactWriteItems` — the head moved from the count this handle saw to the new one, each
 * entry item put only if absent. A writer that lost the race learns the count from the
 * failed condition (`ALL_OLD`) and sends again after it: batches from any number of writers
 * all land, whole, in commit order, and none is written twice.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { InvalidBatchError, SessionConflictError } from '@panto/core/store-kit';
import { namesFor } from '../../table/expressions.js';
import { backoff } from '../../table/transaction-failures.js';
import {
  LOG_APPEND_CONDITION,
  LOG_APPEND_CONDITION_NEW,
  LOG_APPEND_REMOVE_BATCH,
  LOG_APPEND_UPDATE,
  LOG_APPEND_UPDATE_BATCH,
  LOG_APPEND_UPDATE_LISTED,
  LOG_ENTRY_PUT_CONDITION,
  LOG_UPDATE_EXPIRY,
} from '../shared/adapter-expressions.js';
import { logEntrySk } from '../shared/adapter-keys.js';
import { sendTransaction } from '../shared/transact.js';
import { placeLines, textItem, type PlacedItem } from '../shared/text-items.js';
import { decodeHead, expiryFrom, headKey, type LogAddress, type LogContext, type LogView } from './log-types.js';

/** Tries of one append against other writers before it gives up with `SessionConflictError`. */
export const MAX_APPEND_ATTEMPTS = 12;

export interface AppendBatch {
  /** The entries, one JSON text each (no newlines). */
  lines: readonly string[];
  /**
   * A hash identifying the batch, when a resend of it must not append it twice (the Claude
   * Agent SDK's entries carry ids): an append that finds the log's last batch has this hash
   * writes nothing. Null: always append.
   */
  hash: string | null;
}

/**
 * Appends the batch after everything the log holds, whoever else is appending; resolves to
 * the view after it. `view` is what the handle last knew (a wrong guess costs one more try).
 * Rejects with `SessionConflictError` after {@link MAX_APPEND_ATTEMPTS} lost races,
 * `OffloadRequiredError` when a text must go to S3 and there is none, and with the SDK's own
 * error, untouched, for everything else.
 */
export async function appendToLog(context: LogContext, address: LogAddress, view: LogView, batch: AppendBatch): Promise<LogView> {
  const placed = await placeLines(address.home, batch.lines, randomUUID());
  let seen = view;
  for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
    const now = context.clock();
    const result = await sendTransaction(context.client, { TransactItems: appendItems(context, address, seen, batch, placed, now) }, context.retry);
    switch (result.kind) {
      case 'committed':
        return { exists: true, count: seen.count + batch.lines.length, liveFrom: seen.liveFrom };
      case 'conflict': {
        const head = decodeHead(result.old);
        if (head !== null && batch.hash !== null && head.lastBatch === batch.hash) return { exists: true, count: head.count, liveFrom: head.liveFrom };
        seen = head === null ? { exists: false, count: 0, liveFrom: 0 } : { exists: true, count: head.count, liveFrom: head.liveFrom };
        // Several writers on one log: spread the next tries out.
        if (attempt > 0) await backoff(context.retry, attempt - 1);
        continue;
      }
      case 'refused':
        throw new InvalidBatchError(`${address.home.name}: an entry item already exists though the log's head did not move; nothing was written`, {
          cause: result.error,
        });
      case 'verify':
        throw result.error;
    }
  }
  throw new SessionConflictError(address.home.name, {
    expected: { entryId: null, entryCount: view.count },
    current: { entryId: null, entryCount: seen.count },
  });
}

/** The transaction of one try: the head's update, then the entry items at the count the try assumes. */
function appendItems(
  context: LogContext,
  address: LogAddress,
  seen: LogView,
  batch: AppendBatch,
  placed: readonly PlacedItem[],
  now: Date,
): TransactWriteItem[] {
  const expiresAt = expiryFrom(context, now);
  const values: Record<string, AttributeValue> = {
    ':entry_count': { N: String(seen.count + batch.lines.length) },
    ':zero': { N: '0' },
    ':now': { S: now.toISOString() },
  };
  let update = LOG_APPEND_UPDATE;
  if (expiresAt !== null) {
    update += LOG_UPDATE_EXPIRY;
    values[':expires_at'] = { N: String(expiresAt) };
  }
  if (address.listed !== undefined) {
    update += LOG_APPEND_UPDATE_LISTED;
    values[':gsi1pk'] = { S: address.listed.gsi1pk };
    values[':gsi1sk'] = { S: address.listed.gsi1sk };
  }
  if (batch.hash === null) {
    update += LOG_APPEND_REMOVE_BATCH;
  } else {
    update += LOG_APPEND_UPDATE_BATCH;
    values[':last_batch'] = { S: batch.hash };
  }
  const condition = seen.exists ? LOG_APPEND_CONDITION : LOG_APPEND_CONDITION_NEW;
  if (seen.exists) values[':expected_count'] = { N: String(seen.count) };
  return [
    {
      Update: {
        TableName: context.tableName,
        Key: headKey(address),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: namesFor(update, condition),
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    ...placed.map((item) => ({
      Put: {
        TableName: context.tableName,
        Item: textItem({ pk: address.pk, sk: logEntrySk(address.sub, seen.count + item.planned.index) }, item, expiresAt),
        ConditionExpression: LOG_ENTRY_PUT_CONDITION,
        ExpressionAttributeNames: namesFor(LOG_ENTRY_PUT_CONDITION),
      },
    })),
  ];
}
