/**
 * The append transaction: one `TransactWriteItems` that advances the META item's head
 * only if it is where the handle last saw it, and puts the batch's entry items only if
 * absent. This module builds it, sends it with bounded retries under one
 * `ClientRequestToken`, and maps its failures (classified in table/transaction-failures.ts).
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue, DynamoDBClient, TransactWriteItem, TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { InvalidBatchError, SessionConflictError, SessionNotFoundError, type ActiveModel, type SessionEntry } from '@panto/core/store-kit';
import { entryItem, type OffloadRef } from '../../entries/entry-item.js';
import type { PlannedItem } from '../../entries/pack-batch.js';
import { SessionBusyError, SessionLeaseLostError } from '../../errors.js';
import { getMetaItem } from '../../meta/meta-item.js';
import { deletePartialItem } from '../../partial/partial-answer.js';
import { isOwnersItem } from '../../meta/visibility.js';
import { ATTR } from '../../table/attributes.js';
import { sendTransaction } from '../../table/short-placeholders.js';
import {
  APPEND_CONDITION,
  APPEND_CONDITION_EMPTY,
  APPEND_CONDITION_LEASE,
  APPEND_CONDITION_SEEN_MODEL,
  APPEND_CONDITION_SEEN_NO_MODEL,
  APPEND_CONDITION_TAKE_LEASE,
  APPEND_REMOVE_RELEASE_LEASE,
  APPEND_REMOVE_TAKE_LEASE,
  APPEND_UPDATE,
  APPEND_UPDATE_EXPIRY,
  APPEND_UPDATE_MODEL,
  APPEND_UPDATE_TAKE_LEASE,
  APPEND_UPDATE_TITLE,
  APPEND_UPDATE_UNINDEXED,
  ENTRY_PUT_CONDITION,
  namesFor,
} from '../../table/expressions.js';
import { entrySk, metaKey, sessionPk, updatedValues } from '../../table/keys.js';
import { extraRefusals, type AppendExtras } from './transaction-extras.js';
import { backoff, classifyTransactionError, DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../table/transaction-failures.js';

/** Everything one append writes. */
export interface AppendPlan {
  tableName: string;
  sessionId: string;
  owner: string;
  /** What this handle last saw: the newest entry id (null when empty) and the entry count. */
  expected: { head: string | null; count: number };
  /** The batch, chained. */
  entries: readonly SessionEntry[];
  /** The parent a handle that loads the session after this batch chains to (META's `next_parent`). */
  resumeParent: string | null;
  items: ReadonlyArray<{ planned: PlannedItem; ref: OffloadRef | null }>;
  updatedAt: string;
  /** The newest provider/model the batch names, if any. */
  activeModel: ActiveModel | null;
  /** The title, when the batch holds the session's first user prompt as far as this handle knows. */
  title: string | null;
  /** Epoch seconds, when the session has a TTL. */
  expiresAt: number | null;
  /** The turn lease the handle holds, if it holds one: the append is fenced by it. */
  leaseId: string | null;
  /** The turn lease this append takes (a turn's prompt: no other request before it), or null. Never with `leaseId`. */
  takeLease: LeaseTaken | null;
  /** Whether this append gives up the lease it is fenced by (a turn's last write: no release request after it). */
  releaseLease: boolean;
  /** Whether this append deletes the session's partial answer item (it stores the message the partial stood for). */
  deletePartial: boolean;
  /** Writes of other items that commit with the batch or not at all (the usage ledger's), at the end of TransactItems. */
  extraWrites?: ReadonlyArray<TransactWriteItem>;
  /** What to do when a condition of `extraWrites` does not hold (see AppendExtras.refused); without it, the SDK's error. */
  onExtraRefused?: AppendExtras['refused'];
}

/** A lease an append takes: its id (the fencing token from then on), when it lapses and now, in epoch milliseconds. */
export interface LeaseTaken {
  leaseId: string;
  expiresAt: number;
  now: number;
  /** The model META named when the turn read it (its provider was picked by it): the write is refused if it changed. */
  seenModel: ActiveModel | null;
}

export function buildAppendTransaction(plan: AppendPlan, token: string): TransactWriteItemsCommandInput {
  const last = plan.entries[plan.entries.length - 1]!;
  const nextParent = plan.resumeParent;
  const values: Record<string, AttributeValue> = {
    ':owner': { S: plan.owner },
    ':expected_count': { N: String(plan.expected.count) },
    ':head': { S: last.id },
    ':next_parent': nextParent === null ? { NULL: true } : { S: nextParent },
    ':added': { N: String(plan.entries.length) },
  };
  // A turn's prompt leaves `updated_at` and the index keys to the turn's last write.
  let update = plan.takeLease === null ? APPEND_UPDATE : APPEND_UPDATE_UNINDEXED;
  if (plan.takeLease === null) Object.assign(values, updatedValues(plan.updatedAt, plan.sessionId));
  let condition = plan.expected.head === null ? APPEND_CONDITION_EMPTY : APPEND_CONDITION;
  if (plan.expected.head !== null) values[':expected_head'] = { S: plan.expected.head };
  const lease = leaseTerms(plan, values);
  condition += lease.condition;
  update += lease.update;
  const removed = lease.removed;
  if (plan.activeModel !== null) {
    update += APPEND_UPDATE_MODEL;
    values[':active_provider'] = { S: plan.activeModel.provider };
    values[':active_model'] = { S: plan.activeModel.model };
  }
  if (plan.title !== null) {
    update += APPEND_UPDATE_TITLE;
    values[':title'] = { S: plan.title };
  }
  if (plan.expiresAt !== null) {
    update += APPEND_UPDATE_EXPIRY;
    values[':expires_at'] = { N: String(plan.expiresAt) };
  }
  // REMOVE comes after every SET part.
  if (removed.length > 0) update += ` REMOVE ${[...new Set(removed)].join(', ')}`;
  const pk = sessionPk(plan.sessionId);
  return {
    ClientRequestToken: token,
    TransactItems: [
      {
        Update: {
          TableName: plan.tableName,
          Key: metaKey(plan.sessionId),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: namesFor(update, condition),
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      ...plan.items.map(({ planned, ref }) => ({
        Put: {
          TableName: plan.tableName,
          Item: entryItem({ pk, sk: entrySk(planned.index) }, planned, ref),
          ConditionExpression: ENTRY_PUT_CONDITION,
          ExpressionAttributeNames: namesFor(ENTRY_PUT_CONDITION),
        },
      })),
      // Last, unconditional: it cannot be the item a cancellation names.
      ...(plan.deletePartial ? [deletePartialItem(plan.tableName, plan.sessionId)] : []),
      ...(plan.extraWrites ?? []),
    ],
  };
}

/** The lease's part of an append: fenced by it, taking it (a turn's prompt) or giving it up (a turn's last write). */
function leaseTerms(plan: AppendPlan, values: Record<string, AttributeValue>): { condition: string; update: string; removed: string[] } {
  if (plan.leaseId !== null) {
    values[':lease_id'] = { S: plan.leaseId };
    return { condition: APPEND_CONDITION_LEASE, update: '', removed: plan.releaseLease ? [...APPEND_REMOVE_RELEASE_LEASE] : [] };
  }
  const taken = plan.takeLease;
  if (taken === null) return { condition: '', update: '', removed: [] };
  values[':lease_id'] = { S: taken.leaseId };
  values[':lease_expires_at'] = { N: String(taken.expiresAt) };
  values[':now'] = { N: String(taken.now) };
  values[':now_seconds'] = { N: String(Math.floor(taken.now / 1000)) };
  const seen = taken.seenModel;
  if (seen !== null) {
    values[':seen_provider'] = { S: seen.provider };
    values[':seen_model'] = { S: seen.model };
  }
  return {
    condition: APPEND_CONDITION_TAKE_LEASE + (seen === null ? APPEND_CONDITION_SEEN_NO_MODEL : APPEND_CONDITION_SEEN_MODEL),
    update: APPEND_UPDATE_TAKE_LEASE,
    removed: [...APPEND_REMOVE_TAKE_LEASE],
  };
}

/**
 * Sends the append transaction. Resolves once the batch is committed — including when an
 * earlier attempt under the same token (or an earlier call that failed without an answer)
 * committed it. Rejects with `SessionConflictError` when another writer moved the head,
 * `SessionLeaseLostError` when the plan is fenced by a lease that another holder has taken,
 * `SessionNotFoundError` when the session is gone or being deleted (META is a tombstone), `InvalidBatchError` when an entry item
 * already exists, and otherwise with the SDK's own error, untouched, after bounded retries
 * of contention, throttling, 5xx and lost responses.
 */
export async function sendAppend(client: DynamoDBClient, plan: AppendPlan, token: string, policy: RetryPolicy = DEFAULT_RETRY_POLICY): Promise<void> {
  let current = plan;
  let input = buildAppendTransaction(current, token);
  const lastId = plan.entries[plan.entries.length - 1]!.id;
  const committedCount = plan.expected.count + plan.entries.length;
  let resent = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      await sendTransaction(client, input);
      return;
    } catch (error) {
      // A refused extra write (a usage limit) is its owner's to answer: an error, or other writes to try again with.
      const refused = extraRefusals(error, input, current.extraWrites?.length ?? 0);
      if (refused !== null) {
        if (current.onExtraRefused === undefined || resent++ >= 3) throw error;
        const next = await current.onExtraRefused(refused);
        if (next instanceof Error) throw next;
        current = { ...current, extraWrites: next.writes, onExtraRefused: (again) => next.refused(again) };
        input = buildAppendTransaction(current, randomUUID());
        continue;
      }
      const decision = classifyTransactionError(error, input);
      switch (decision.kind) {
        case 'conflict': {
          const old = decision.old;
          // Missing, another owner's, or a tombstone: the session is gone (or being deleted).
          // An archived session is a conflict like any other: the handle loads it (which
          // restores it) and appends again.
          if (!isOwnersItem(old, plan.owner)) {
            throw new SessionNotFoundError(plan.sessionId, { cause: error });
          }
          const currentHead = old[ATTR.head]?.S ?? null;
          const currentCount = Number(old[ATTR.entryCount]?.N ?? Number.NaN);
          // Our own batch, committed by an attempt whose answer was lost.
          if (currentHead === lastId && currentCount === committedCount) return;
          // Fenced off: our lease lapsed and another holder took it (whether or not it wrote yet).
          if (plan.leaseId !== null && old[ATTR.leaseId]?.S !== plan.leaseId) {
            throw new SessionLeaseLostError(plan.sessionId, { cause: error });
          }
          if (plan.takeLease !== null) refuseTaking(plan.sessionId, plan.takeLease, old, error);
          throw new SessionConflictError(
            plan.sessionId,
            {
              expected: { entryId: plan.expected.head, entryCount: plan.expected.count },
              current: { entryId: currentHead, ...(Number.isNaN(currentCount) ? {} : { entryCount: currentCount }) },
            },
            { cause: error },
          );
        }
        case 'duplicate':
          throw new InvalidBatchError(
            `session ${plan.sessionId}: entry item ${decision.sk ?? '?'} already exists though the session head did not move; nothing was written`,
            {
              cause: error,
            },
          );
        case 'verify':
          // The token was used before with other parameters. Tokens are per batch, so an
          // earlier attempt committed this batch — or something else is wrong: check.
          if (await isCommitted(client, plan, lastId, committedCount)) return;
          throw error;
        case 'retry':
          if (attempt >= policy.maxRetries) throw error;
          await backoff(policy, attempt);
          continue;
        case 'rethrow':
          throw error;
      }
    }
  }
}

/** Whether META, read again, shows the batch committed: still the owner's live session, at its last entry and count. */
async function isCommitted(client: DynamoDBClient, plan: AppendPlan, lastId: string, count: number): Promise<boolean> {
  const meta = await getMetaItem(client, plan.tableName, plan.sessionId);
  return isOwnersItem(meta, plan.owner) && meta[ATTR.head]?.S === lastId && meta[ATTR.entryCount]?.N === String(count);
}

/**
 * Why an append that takes the lease was refused, when it is not the head: another turn holds
 * an unexpired lease (`SessionBusyError`), or the session expired (`SessionNotFoundError`).
 * Returns when neither: the head moved, a conflict.
 */
function refuseTaking(sessionId: string, taken: LeaseTaken, old: Record<string, AttributeValue>, cause: unknown): void {
  const heldUntil = Number(old[ATTR.leaseExpiresAt]?.N ?? Number.NaN);
  if (old[ATTR.leaseId] !== undefined && heldUntil > taken.now) throw new SessionBusyError(sessionId, heldUntil, { cause });
  const expiresAt = Number(old[ATTR.expiresAt]?.N ?? Number.NaN);
  if (expiresAt * 1000 <= taken.now) throw new SessionNotFoundError(sessionId, { cause });
}
