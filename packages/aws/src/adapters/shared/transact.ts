/**
 * Sending one of the adapters' transactions: one `ClientRequestToken` for every try of it, so
 * DynamoDB applies it at most once; contention, throttling, 5xx and lost answers retried with
 * DynamoStore's bounded, jittered backoff; a failed condition handed back for the caller to
 * decide on (classified by table/transaction-failures.ts, as DynamoStore's appends are).
 */
import { randomUUID } from 'node:crypto';
import { TransactWriteItemsCommand, type AttributeValue, type DynamoDBClient, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { backoff, classifyTransactionError, DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../table/transaction-failures.js';

/** What became of a transaction that did not throw. */
export type TransactResult =
  /** Committed: by this call, or by an earlier try under the same token whose answer was lost. */
  | { kind: 'committed' }
  /** The first action's condition failed: `old` is that item as it is (`ALL_OLD`), undefined when absent. */
  | { kind: 'conflict'; old: Record<string, AttributeValue> | undefined; error: unknown }
  /** Another action's condition failed (the first passed): the indexes of those actions. */
  | { kind: 'refused'; actions: number[]; error: unknown }
  /** DynamoDB saw the token before with other parameters: whether it committed must be read. */
  | { kind: 'verify'; error: unknown };

/**
 * Sends `input` as one transaction, retrying what is worth retrying under one token, at most
 * `policy.maxRetries` times; then the SDK's last error is rethrown untouched, as is every
 * error not understood (`ValidationException`, access denied …).
 */
export async function sendTransaction(
  client: DynamoDBClient,
  input: Omit<TransactWriteItemsCommandInput, 'ClientRequestToken'>,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<TransactResult> {
  const request: TransactWriteItemsCommandInput = { ...input, ClientRequestToken: randomUUID() };
  for (let attempt = 0; ; attempt++) {
    try {
      await client.send(new TransactWriteItemsCommand(request));
      return { kind: 'committed' };
    } catch (error) {
      const decision = classifyTransactionError(error, request);
      switch (decision.kind) {
        case 'conflict':
          return { kind: 'conflict', old: decision.old, error };
        case 'duplicate':
          return { kind: 'refused', actions: failedActions(error), error };
        case 'verify':
          return { kind: 'verify', error };
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

/** The indexes of the actions a cancelled transaction names as failing their condition. */
export function failedActions(error: unknown): number[] {
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  return reasons.flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? [index] : []));
}
