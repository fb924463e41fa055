/**
 * The turn lease: at most one request runs a turn on a session at a time. The HTTP service
 * takes it before a turn, renews it while the turn runs (see lease-heartbeat.ts) and
 * releases it after; a holder that dies stops renewing, and the lease lapses by itself
 * within its (short) term. Its id is a fencing token: a store that holds the lease appends
 * only while META still names it, so a holder whose lease lapsed and was taken by another
 * cannot write. A stop asked of the holder is a flag on META that its renewal reads back.
 */
import { randomUUID } from 'node:crypto';
import { UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError } from '@panto/core';
import { SessionBusyError, SessionLeaseLostError, TurnNotRunningError } from '../errors.js';
import { decodeMeta, type HeldLease, type MetaRecord } from '../meta/meta-item.js';
import {
  LEASE_ACQUIRE_CONDITION,
  LEASE_ACQUIRE_UPDATE,
  LEASE_RELEASE_CONDITION,
  LEASE_RELEASE_UPDATE,
  LEASE_RENEW_CONDITION,
  LEASE_RENEW_UPDATE,
  namesFor,
  STOP_REQUEST_CONDITION,
  STOP_REQUEST_UPDATE,
} from '../table/expressions.js';
import { assertValidOwner, ATTR, errorName, isValidSessionId, META_SK, metaKey, sessionPk } from '../table/keys.js';

export interface AcquireSessionLeaseOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  /** How long the lease holds unless renewed or released, in milliseconds. */
  leaseMs: number;
  /** Epoch milliseconds now (default `Date.now`); acquiring and renewing judge expiry by it. */
  now?: () => number;
}

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
  /** Gives the lease up if it is still ours; never throws for a lease that expired and was taken. */
  release(): Promise<void>;
}

/**
 * Takes the session's turn lease with one conditional UpdateItem on its META item.
 * `SessionBusyError` while another unexpired lease holds; `SessionNotFoundError` for a
 * missing session, another owner's, or one being deleted.
 *
 * @example
 * const lease = await acquireSessionLease({ client, tableName, owner, sessionId, leaseMs: 30_000 });
 * const heartbeat = keepSessionLease(lease, { renewEveryMs: 10_000 });
 * try { await runTurn({ signal: heartbeat.signal }); } finally { await heartbeat.stop(); await lease.release(); }
 */
export async function acquireSessionLease(options: AcquireSessionLeaseOptions): Promise<SessionLease> {
  return (await takeSessionLease(options)).lease;
}

/**
 * {@link acquireSessionLease}, also returning the META item as the lease left it (the same
 * UpdateItem returns it): a consistent read of the session's head for free.
 */
export async function takeSessionLease(options: AcquireSessionLeaseOptions): Promise<{ lease: SessionLease; meta: MetaRecord }> {
  const { client, tableName, owner, sessionId, leaseMs } = options;
  assertValidOwner(owner);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  if (!(Number.isInteger(leaseMs) && leaseMs > 0)) throw new RangeError('leaseMs must be a positive integer');
  const clock = options.now ?? Date.now;
  const now = clock();
  const leaseId = randomUUID();
  let attributes: Record<string, AttributeValue> | undefined;
  try {
    ({ Attributes: attributes } = await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        UpdateExpression: LEASE_ACQUIRE_UPDATE,
        ConditionExpression: LEASE_ACQUIRE_CONDITION,
        ExpressionAttributeNames: namesFor(LEASE_ACQUIRE_UPDATE, LEASE_ACQUIRE_CONDITION),
        ExpressionAttributeValues: {
          ':owner': { S: owner },
          ':now': { N: String(now) },
          ':lease_id': { S: leaseId },
          ':lease_expires_at': { N: String(now + leaseMs) },
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
    const old = oldItem(error);
    // Missing, another owner's, or a tombstone (being deleted): not found, whatever its lease says.
    if (old === undefined || old[ATTR.owner]?.S !== owner || old[ATTR.deletedAt] !== undefined) {
      throw new SessionNotFoundError(sessionId, { cause: error });
    }
    const held = Number(old[ATTR.leaseExpiresAt]?.N ?? Number.NaN);
    throw new SessionBusyError(sessionId, Number.isFinite(held) ? held : null, { cause: error });
  }
  const meta = decodeMeta(returned(attributes), source(tableName, sessionId));
  return { lease: new DynamoLease(client, tableName, sessionId, leaseId, now + leaseMs, leaseMs, clock), meta };
}

class DynamoLease implements SessionLease {
  readonly sessionId: string;
  readonly leaseId: string;
  #expiresAt: number;
  readonly #client: DynamoDBClient;
  readonly #tableName: string;
  readonly #leaseMs: number;
  readonly #now: () => number;

  constructor(client: DynamoDBClient, tableName: string, sessionId: string, leaseId: string, expiresAt: number, leaseMs: number, now: () => number) {
    this.#client = client;
    this.#tableName = tableName;
    this.sessionId = sessionId;
    this.leaseId = leaseId;
    this.#expiresAt = expiresAt;
    this.#leaseMs = leaseMs;
    this.#now = now;
  }

  get expiresAt(): number {
    return this.#expiresAt;
  }

  async renew(): Promise<LeaseRenewal> {
    const expiresAt = this.#now() + this.#leaseMs;
    let attributes: Record<string, AttributeValue> | undefined;
    try {
      ({ Attributes: attributes } = await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#tableName,
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
      if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
      const old = oldItem(error);
      if (old === undefined || old[ATTR.deletedAt] !== undefined) throw new SessionNotFoundError(this.sessionId, { cause: error });
      throw new SessionLeaseLostError(this.sessionId, { cause: error });
    }
    this.#expiresAt = expiresAt;
    return { expiresAt, stopRequested: returned(attributes)[ATTR.stopRequested]?.S === this.leaseId };
  }

  async release(): Promise<void> {
    try {
      await this.#client.send(
        new UpdateItemCommand({
          TableName: this.#tableName,
          Key: metaKey(this.sessionId),
          UpdateExpression: LEASE_RELEASE_UPDATE,
          ConditionExpression: LEASE_RELEASE_CONDITION,
          ExpressionAttributeNames: namesFor(LEASE_RELEASE_UPDATE, LEASE_RELEASE_CONDITION),
          ExpressionAttributeValues: { ':lease_id': { S: this.leaseId } },
        }),
      );
    } catch (error) {
      // Expired and taken by someone else, or the session was deleted: nothing of ours to release.
      if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
    }
  }
}

export interface RequestTurnStopOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  /** Epoch milliseconds now (default `Date.now`): a lease that expired by then holds no turn. */
  now?: () => number;
}

/**
 * Asks the turn that holds the session's lease to stop: one conditional UpdateItem that
 * marks META with that lease's id. The holder reads it back at its next renewal and stops
 * at its next chunk or tool boundary, keeping what it committed. Resolves with the lease as
 * it now stands; `TurnNotRunningError` when no live lease is held, `SessionNotFoundError`
 * for a missing session, another owner's, or one being deleted. Asking twice is harmless.
 *
 * @example
 * await requestTurnStop({ client, tableName, owner, sessionId });
 */
export async function requestTurnStop(options: RequestTurnStopOptions): Promise<HeldLease> {
  const { client, tableName, owner, sessionId } = options;
  assertValidOwner(owner);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  const now = (options.now ?? Date.now)();
  let attributes: Record<string, AttributeValue> | undefined;
  try {
    ({ Attributes: attributes } = await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: metaKey(sessionId),
        UpdateExpression: STOP_REQUEST_UPDATE,
        ConditionExpression: STOP_REQUEST_CONDITION,
        ExpressionAttributeNames: namesFor(STOP_REQUEST_UPDATE, STOP_REQUEST_CONDITION),
        ExpressionAttributeValues: { ':owner': { S: owner }, ':now': { N: String(now) } },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (errorName(error) !== 'ConditionalCheckFailedException') throw error;
    const old = oldItem(error);
    if (old === undefined || old[ATTR.owner]?.S !== owner || old[ATTR.deletedAt] !== undefined) {
      throw new SessionNotFoundError(sessionId, { cause: error });
    }
    throw new TurnNotRunningError(sessionId, { cause: error });
  }
  const { lease } = decodeMeta(returned(attributes), source(tableName, sessionId));
  if (lease === null) throw new TypeError('a stop request left META without a lease');
  return lease;
}

function oldItem(error: unknown): Record<string, AttributeValue> | undefined {
  return (error as { Item?: Record<string, AttributeValue> }).Item;
}

function returned(attributes: Record<string, AttributeValue> | undefined): Record<string, AttributeValue> {
  if (attributes === undefined) throw new TypeError('UpdateItem with ReturnValues ALL_NEW returned no attributes');
  return attributes;
}

function source(tableName: string, sessionId: string): string {
  return `dynamodb:${tableName}/${sessionPk(sessionId)}/${META_SK}`;
}
