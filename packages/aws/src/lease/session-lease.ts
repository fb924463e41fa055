/**
 * The turn lease a holder has: at most one request runs a turn on a session at a time. The
 * HTTP service takes it before a turn (acquire-session-lease.ts), renews it while the turn
 * runs (lease-heartbeat.ts) and releases it after; a holder that dies stops renewing, and the
 * lease lapses by itself within its (short) term. Its id is a fencing token: a store that
 * holds the lease appends only while META still names it, so a holder whose lease lapsed and
 * was taken by another cannot write. A stop asked of the holder (request-turn-stop.ts) is a
 * flag on META that its renewal reads back.
 */
import { UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core/store-kit';
import { SessionLeaseLostError } from '../errors.js';
import { isOwnersItem } from '../meta/visibility.js';
import { ATTR } from '../table/attributes.js';
import {
  LEASE_RELEASE_CONDITION,
  LEASE_RELEASE_TOUCH_CONDITION,
  LEASE_RELEASE_TOUCH_UPDATE,
  LEASE_RELEASE_UPDATE,
  LEASE_RENEW_CONDITION,
  LEASE_RENEW_UPDATE,
  namesFor,
} from '../table/expressions.js';
import { metaKey, updatedValues } from '../table/keys.js';
import { conditionFailedItem, isConditionalCheckFailed, updatedItem } from '../table/sdk-errors.js';

/** What a renewal found on META. */
export interface LeaseRenewal {
  /** Epoch milliseconds: the lease's new expiry. */
  expiresAt: number;
  /** Whether a stop was asked of this holder (`requestTurnStop`): it should stop, then release. */
  stopRequested: boolean;
}

export interface SessionLease {
  readonly sessionId: string;
  readonly leaseId: string;
  /** Epoch milliseconds: when the lease lapses unless renewed, as of the last acquire or renewal that succeeded. */
  readonly expiresAt: number;
  /**
   * Pushes the expiry `leaseMs` past now: one conditional UpdateItem, which also reads back
   * whether a stop was requested. `SessionLeaseLostError` when another holder has taken the
   * lease, `SessionNotFoundError` when the session is gone or being deleted; any other
   * failure (the store unreachable, throttled) is the SDK's error, untouched — the lease
   * may still hold, until `expiresAt`.
   */
  renew(): Promise<LeaseRenewal>;
  /**
   * Gives the lease up if it is still ours; never throws for a lease that expired and was
   * taken. With `touchedAt` (ISO-8601), the holder wrote to the session without moving
   * `updated_at` — a turn's prompt, and the turn then ended with nothing more to commit —
   * and the release moves it, with the index keys and what a list shows of the log.
   */
  release(options?: ReleaseOptions): Promise<void>;
}

export interface ReleaseOptions {
  touchedAt?: string;
}

/** A lease just taken, as `DynamoLease` holds it. */
export interface TakenLease {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  leaseId: string;
  /** Epoch milliseconds it lapses at unless renewed. */
  expiresAt: number;
  /** How far each renewal pushes the expiry past now, in milliseconds. */
  leaseMs: number;
  /** Epoch milliseconds now. */
  now: () => number;
}

/** A lease on a session's META item in DynamoDB. */
export class DynamoLease implements SessionLease {
  readonly sessionId: string;
  readonly leaseId: string;
  #expiresAt: number;
  readonly #taken: TakenLease;

  constructor(taken: TakenLease) {
    this.sessionId = taken.sessionId;
    this.leaseId = taken.leaseId;
    this.#expiresAt = taken.expiresAt;
    this.#taken = taken;
  }

  get expiresAt(): number {
    return this.#expiresAt;
  }

  async renew(): Promise<LeaseRenewal> {
    const { client, tableName, owner, leaseMs, now } = this.#taken;
    const expiresAt = now() + leaseMs;
    let attributes: Record<string, AttributeValue> | undefined;
    try {
      ({ Attributes: attributes } = await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: metaKey(this.sessionId),
          UpdateExpression: LEASE_RENEW_UPDATE,
          ConditionExpression: LEASE_RENEW_CONDITION,
          ExpressionAttributeNames: namesFor(LEASE_RENEW_UPDATE, LEASE_RENEW_CONDITION),
          ExpressionAttributeValues: {
            ':lease_id': { S: this.leaseId },
            ':lease_expires_at': { N: String(expiresAt) },
          },
          // The whole item costs no more than the one attribute: the stop flag comes back for free.
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ));
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      if (!isOwnersItem(conditionFailedItem(error), owner)) throw new SessionNotFoundError(this.sessionId, { cause: error });
      throw new SessionLeaseLostError(this.sessionId, { cause: error });
    }
    this.#expiresAt = expiresAt;
    return { expiresAt, stopRequested: updatedItem(attributes)[ATTR.stopRequested]?.S === this.leaseId };
  }

  async release(options: ReleaseOptions = {}): Promise<void> {
    const { client, tableName } = this.#taken;
    const { touchedAt } = options;
    const update = touchedAt === undefined ? LEASE_RELEASE_UPDATE : LEASE_RELEASE_TOUCH_UPDATE;
    const condition = touchedAt === undefined ? LEASE_RELEASE_CONDITION : LEASE_RELEASE_TOUCH_CONDITION;
    const values: Record<string, AttributeValue> = {
      ':lease_id': { S: this.leaseId },
      ...(touchedAt === undefined ? {} : updatedValues(touchedAt, this.sessionId)),
    };
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: metaKey(this.sessionId),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: namesFor(update, condition),
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      // Expired and taken by someone else, or the session was deleted: nothing of ours to release.
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
}
