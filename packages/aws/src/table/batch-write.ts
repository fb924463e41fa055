import { BatchWriteItemCommand, type DynamoDBClient, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { UnprocessedWritesError } from '../errors.js';

/** BatchWriteItem takes at most 25 requests. */
const BATCH_SIZE = 25;
const MAX_ATTEMPTS = 8;

/**
 * Writes (puts or deletes) every request, 25 to a call, resending what DynamoDB leaves
 * unprocessed with backoff. Not atomic: callers make partial progress invisible.
 */
export async function batchWriteAll(client: DynamoDBClient, tableName: string, requests: readonly WriteRequest[]): Promise<void> {
  for (let start = 0; start < requests.length; start += BATCH_SIZE) {
    let pending: WriteRequest[] = requests.slice(start, start + BATCH_SIZE);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= MAX_ATTEMPTS) {
        throw new UnprocessedWritesError(tableName, pending.length, MAX_ATTEMPTS);
      }
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2_000, 50 * 2 ** attempt)));
      const { UnprocessedItems } = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }));
      pending = UnprocessedItems?.[tableName] ?? [];
    }
  }
}
