/**
 * The archive claim: what keeps a sweeper removing an archived session's items and a request
 * restoring them from running at once. It is a pair of attributes on META (`archive_claim_id`,
 * `archive_claim_expires_at`), taken with one conditional write and lapsing on its own when
 * its holder dies. Every write to the session's items under it is a transaction whose first
 * action checks and renews it, so a holder that lost it — paused past its expiry while
 * another took over — writes nothing: the claim id is a fencing token.
 */
import { randomUUID } from 'node:crypto';
import { TransactWriteItemsCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { systemClock } from '@panto/core/store-kit';
import { TRANSACTION_TEXT_LIMIT } from '../entries/pack-batch.js';
import { ArchiveClaimLostError } from '../errors.js';
import { decodeMeta, metaSource, type MetaRecord } from '../meta/meta-item.js';
import {
  ARCHIVE_CLAIM_CONDITION,
  ARCHIVE_CLAIM_UPDATE,
  CLAIM_HELD_CONDITION,
  CLAIM_RELEASE_UPDATE,
  CLAIM_RENEW_UPDATE,
  namesFor,
} from '../table/expressions.js';
import { metaKey } from '../table/keys.js';
import { conditionFailedItem, isConditionalCheckFailed, updatedItem } from '../table/sdk-errors.js';
import { backoff, classifyTransactionError, DEFAULT_RETRY_POLICY } from '../table/transaction-failures.js';

/** How long a claim holds unless renewed; every transaction under it renews it. */
export const DEFAULT_CLAIM_MS = 60_000;
/** Item actions per transaction: 100, one of them the claim's check. */
const ITEMS_PER_TRANSACTION = 99;

export interface ClaimTarget {
  client: DynamoDBClient;
  tableName: string;
  sessionId: string;
  /** How long the claim holds unless renewed (default {@link DEFAULT_CLAIM_MS}). */
  claimMs?: number;
  /** Tells the time (default: the system clock). */
  clock?: () => Date;
}

/**
 * Claims an archived session of `owner` whose claim is free (never taken, released, or
 * lapsed). Resolves with the claim and META as it now is, or — when the session is not
 * archived, is not this owner's live session, or someone else holds the claim — with null
 * and META as it was (null when there is none).
 */
export async function takeArchiveClaim(
  target: ClaimTarget & { owner: string },
): Promise<{ claim: ArchiveClaim; meta: MetaRecord } | { claim: null; meta: MetaRecord | null }> {
  const { client, tableName, sessionId } = target;
  const claimMs = target.claimMs ?? DEFAULT_CLAIM_MS;
  const now = (target.clock ?? systemClock)().getTime();
  const claimId = randomUUID();
  const source = metaSource(tableName, sessionId);
  try {
    const { Attributes: attributes } = await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        UpdateExpression: ARCHIVE_CLAIM_UPDATE,
        ConditionExpression: ARCHIVE_CLAIM_CONDITION,
        ExpressionAttributeNames: namesFor(ARCHIVE_CLAIM_UPDATE, ARCHIVE_CLAIM_CONDITION),
        ExpressionAttributeValues: {
          ':owner': { S: target.owner },
          ':now': { N: String(now) },
          ':claim_id': { S: claimId },
          ':claim_expires_at': { N: String(now + claimMs) },
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { claim: new ArchiveClaim(target, claimId, now), meta: decodeMeta(updatedItem(attributes), source) };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const old = conditionFailedItem(error);
    return { claim: null, meta: old === undefined ? null : decodeMeta(old, source) };
  }
}

/**
 * A claim this process holds: writes and deletes of the session's entry items go through
 * it, in transactions of up to 99 items (and {@link TRANSACTION_TEXT_LIMIT} bytes) that each
 * check and renew the claim first; at most one is in flight while the next fills. Any of
 * them finding the claim gone is an `ArchiveClaimLostError`.
 */
export class ArchiveClaim {
  readonly claimId: string;
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly sessionId: string;
  readonly #target: Required<Pick<ClaimTarget, 'client' | 'tableName' | 'sessionId' | 'claimMs' | 'clock'>>;
  #group: TransactWriteItem[] = [];
  #groupBytes = 0;
  #inFlight: Promise<void> | undefined;
  /** When the claim was last renewed (epoch ms, by this process's clock). */
  #renewedAt: number;

  constructor(target: ClaimTarget, claimId: string, takenAt: number) {
    this.claimId = claimId;
    this.client = target.client;
    this.tableName = target.tableName;
    this.sessionId = target.sessionId;
    this.#target = {
      client: target.client,
      tableName: target.tableName,
      sessionId: target.sessionId,
      claimMs: target.claimMs ?? DEFAULT_CLAIM_MS,
      clock: target.clock ?? systemClock,
    };
    this.#renewedAt = takenAt;
  }

  /** Puts an entry item (overwriting one with the same key), `bytes` being its size. */
  async put(item: Record<string, AttributeValue>, bytes: number): Promise<void> {
    await this.#add({ Put: { TableName: this.#target.tableName, Item: item } }, bytes);
  }

  /** Deletes an entry item. */
  async delete(key: Record<string, AttributeValue>): Promise<void> {
    await this.#add({ Delete: { TableName: this.#target.tableName, Key: key } }, 100);
  }

  /** Writes everything added so far; resolves once it is written. */
  async flush(): Promise<void> {
    if (this.#group.length > 0) await this.#send();
    await this.#inFlight;
  }

  /**
   * Renews the claim if a third of its term has passed since it was last renewed: before a
   * stretch of work that writes no items (S3 deletes, say), so the claim outlives it.
   */
  async renewIfDue(): Promise<void> {
    await this.flush();
    if (this.#target.clock().getTime() - this.#renewedAt > this.#target.claimMs / 3) await this.#transact([]);
  }

  /**
   * The claim's last write: `update` (with `values`) if the claim is still ours and the
   * session not being deleted, after everything added is written. Returns META as it left it.
   */
  async finish(update: string, values: Record<string, AttributeValue>): Promise<MetaRecord> {
    await this.flush();
    const { client, tableName, sessionId } = this.#target;
    try {
      const { Attributes: attributes } = await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: metaKey(sessionId),
          UpdateExpression: update,
          ConditionExpression: CLAIM_HELD_CONDITION,
          ExpressionAttributeNames: namesFor(update, CLAIM_HELD_CONDITION),
          ExpressionAttributeValues: { ...values, ':claim_id': { S: this.claimId } },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return decodeMeta(updatedItem(attributes), metaSource(tableName, sessionId));
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw new ArchiveClaimLostError(sessionId, { cause: error });
      throw error;
    }
  }

  /**
   * Gives the claim up after a failure, if it is still ours, so that whoever comes next need
   * not wait for it to lapse. Best effort: never rejects (an unreleased claim lapses anyway).
   */
  async release(): Promise<void> {
    // A renewal under way only has to settle; its failure is its caller's (and the claim lapses anyway).
    await this.#inFlight?.catch(() => undefined);
    const { client, tableName, sessionId } = this.#target;
    await client
      .send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: metaKey(sessionId),
          UpdateExpression: CLAIM_RELEASE_UPDATE,
          ConditionExpression: CLAIM_HELD_CONDITION,
          ExpressionAttributeNames: namesFor(CLAIM_RELEASE_UPDATE, CLAIM_HELD_CONDITION),
          ExpressionAttributeValues: { ':claim_id': { S: this.claimId } },
        }),
      )
      // Best effort (see above): a claim not released, or no longer ours, lapses on its own.
      .catch(() => undefined);
  }

  async #add(action: TransactWriteItem, bytes: number): Promise<void> {
    if (this.#group.length > 0 && (this.#group.length >= ITEMS_PER_TRANSACTION || this.#groupBytes + bytes > TRANSACTION_TEXT_LIMIT)) {
      await this.#send();
    }
    this.#group.push(action);
    this.#groupBytes += bytes;
    // Slow input (a big batch being read) must not let the claim lapse: send what there is.
    if (this.#target.clock().getTime() - this.#renewedAt > this.#target.claimMs / 3) await this.#send();
  }

  /** Starts the current group's transaction once the one in flight is done (so at most one runs). */
  async #send(): Promise<void> {
    const group = this.#group;
    this.#group = [];
    this.#groupBytes = 0;
    await this.#inFlight;
    const sent = this.#transact(group);
    sent.catch(() => undefined); // awaited by the next #send or flush; this only silences an early rejection
    this.#inFlight = sent;
  }

  /** One transaction: renew the claim (if still ours), and write `actions`. Retried on contention, with one token. */
  async #transact(actions: TransactWriteItem[]): Promise<void> {
    const { client, tableName, sessionId, claimMs, clock } = this.#target;
    const now = clock().getTime();
    const input = {
      ClientRequestToken: randomUUID(),
      TransactItems: [
        {
          Update: {
            TableName: tableName,
            Key: metaKey(sessionId),
            UpdateExpression: CLAIM_RENEW_UPDATE,
            ConditionExpression: CLAIM_HELD_CONDITION,
            ExpressionAttributeNames: namesFor(CLAIM_RENEW_UPDATE, CLAIM_HELD_CONDITION),
            ExpressionAttributeValues: {
              ':claim_id': { S: this.claimId },
              ':claim_expires_at': { N: String(now + claimMs) },
            },
          },
        },
        ...actions,
      ],
    };
    for (let attempt = 0; ; attempt++) {
      try {
        await client.send(new TransactWriteItemsCommand(input));
        this.#renewedAt = now;
        return;
      } catch (error) {
        const decision = classifyTransactionError(error, input);
        if (decision.kind === 'conflict') throw new ArchiveClaimLostError(sessionId, { cause: error });
        if (decision.kind !== 'retry' || attempt >= DEFAULT_RETRY_POLICY.maxRetries) throw error;
        await backoff(DEFAULT_RETRY_POLICY, attempt);
      }
    }
  }
}
