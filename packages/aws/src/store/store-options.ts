/** The options of `DynamoStore.create`, `open` and `lease`. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ActiveModel } from '@panto/core';
import type { S3Location } from '../entries/offload.js';
import type { SessionCache } from './session-cache.js';

export interface DynamoStoreCreateOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Who the session belongs to (e.g. a JWT `sub`); only this owner can open it. */
  owner: string;
  /** Where to offload entry text that does not fit DynamoDB; without it such a batch is refused. */
  s3?: S3Location;
  /** The working folder, recorded in the JSONL header. */
  cwd?: string;
  /**
   * Expire the session this many seconds after its last append (DynamoDB TTL on the META
   * item; see docs/aws.md for what happens to its entry items). Never, when absent.
   */
  ttlSeconds?: number;
  /**
   * The provider and model the session starts with (an HTTP client chose them), reported by
   * `activeModel()` until an entry names one. None, when absent.
   */
  activeModel?: ActiveModel;
  /** The session id (default: a UUIDv7 from `ids`). */
  sessionId?: string;
  /** Tells the time for created/updated stamps (default: the system clock). */
  clock?: () => Date;
  /** Makes the session id when `sessionId` is absent (default: UUIDv7). */
  ids?: () => string;
  /** Retries of a contended, throttled or unanswered append before its error is rethrown (default 4). */
  maxRetries?: number;
  /** As for `open`: the session is cached as it grows. */
  cache?: SessionCache;
}

export interface DynamoStoreOpenOptions {
  client: DynamoDBClient;
  tableName: string;
  sessionId: string;
  owner: string;
  s3?: S3Location;
  clock?: () => Date;
  /** Makes the ids of leaf entries (a switch of the active branch) and of forked sessions (default: UUIDv7). */
  ids?: () => string;
  maxRetries?: number;
  /** Sessions this process has read; a load then reads only what is new (see {@link SessionCache}). */
  cache?: SessionCache;
}

export interface DynamoStoreLeaseOptions extends DynamoStoreOpenOptions {
  /** How long the lease holds unless renewed or released, in milliseconds. */
  leaseMs: number;
}

export interface DynamoStoreTurnOptions extends DynamoStoreLeaseOptions {
  /** Told once an append marked last gave the turn's lease up (stop renewing it). Must not throw. */
  onLeaseReleased?: () => void;
}
