/** Whether the sessions table answers: what a health check asks. */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** A key no item ever has (no session id, idempotency key or META looks like it). */
export const HEALTH_KEY = { pk: { S: 'HEALTH' }, sk: { S: 'HEALTH' } } as const;

/** What {@link pingTable} found: the table answered, or the error that says why not. */
export type TablePing = { ok: true } | { ok: false; error: unknown };

/**
 * Reads a key that never exists, with one GetItem (half a read unit): `ok` when the table
 * answered within `timeoutMs`; otherwise the failure (a timeout is an `AbortError`), for the
 * caller to report. Never rejects: a health check answers either way.
 *
 * @example
 * const ping = await pingTable({ client, tableName, timeoutMs: 2000 });
 */
export async function pingTable(options: { client: DynamoDBClient; tableName: string; timeoutMs: number }): Promise<TablePing> {
  try {
    await options.client.send(new GetItemCommand({ TableName: options.tableName, Key: { ...HEALTH_KEY } }), {
      abortSignal: AbortSignal.timeout(options.timeoutMs),
    });
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}
