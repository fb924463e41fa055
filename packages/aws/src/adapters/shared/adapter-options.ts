/** What every adapter is constructed with, and the context its operations run in. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { systemClock } from '@panto/core/store-kit';
import type { S3Location } from '../../entries/offload.js';
import { DEFAULT_RETRY_POLICY } from '../../table/transaction-failures.js';
import type { LogContext } from '../log/log-types.js';

export interface AdapterOptions {
  /** A client of the table `createTable({ client, tableName })` made — the one DynamoStore uses. */
  client: DynamoDBClient;
  tableName: string;
  /** Where texts too big for DynamoDB go (as for `DynamoStore`); without it, writing one is an `OffloadRequiredError` and nothing is written. */
  s3?: S3Location;
  /** Retries of a throttled, contended or unanswered write before its error is rethrown (default 4). */
  maxRetries?: number;
  /** Tells the time for stamps and expiry (default: the system clock). */
  clock?: () => Date;
}

export function logContext(options: AdapterOptions, ttlSeconds: number | null, reviver?: LogContext['reviver']): LogContext {
  if (ttlSeconds !== null && !(Number.isInteger(ttlSeconds) && ttlSeconds > 0))
    throw new RangeError(`ttlSeconds must be a positive integer, not ${ttlSeconds}`);
  return {
    client: options.client,
    tableName: options.tableName,
    s3: options.s3,
    clock: options.clock ?? systemClock,
    ttlSeconds,
    retry: { ...DEFAULT_RETRY_POLICY, ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }) },
    ...(reviver === undefined ? {} : { reviver }),
  };
}

/**
 * Runs the operations on one key one after another, in call order, whatever their callers
 * await: two appends a process makes to one log commit in the order they were made.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}

/** Throws a `TypeError` naming `what` unless `value` is a non-empty string. */
export function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new TypeError(`${what} must be a non-empty string`);
  return value;
}
