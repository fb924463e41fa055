/**
 * Writes of another part of the table that ride on a session's append — in its one
 * `TransactWriteItems`, after META and the entry items, committed with the batch or not at
 * all — and what to do when one of their conditions does not hold; and the same writes sent
 * alone when no append carries them (`sendExtras`). The usage ledger uses them
 * (functions/src/services/usage-hold.ts); the store knows nothing of what they mean.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue, DynamoDBClient, TransactWriteItem, TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import type { SessionEntry } from '@panto/core';
import { sdkErrorName } from '../../table/sdk-errors.js';
import { sendTransaction } from '../../table/short-placeholders.js';

/** One extra write whose condition did not hold: its index in the extra writes, and the item as it was (when it returned one). */
export interface ExtraRefusal {
  index: number;
  item: Record<string, AttributeValue> | undefined;
}

/** What an append carries besides its batch. */
export interface AppendExtras {
  writes: ReadonlyArray<TransactWriteItem>;
  /**
   * Some of `writes` were refused (nothing was written): resolves to the error the append
   * rejects with, or to other writes to send the append again with. Called at most 3 times
   * per append; may reject (the append then rejects with that).
   */
  refused(refusals: readonly ExtraRefusal[]): Promise<Error | AppendExtras>;
  /** Called once the append committed, with the writes that went with it. Must not throw. */
  committed?(): void;
}

/**
 * Consulted before each append of a store it is set on (`DynamoStore.setAppendHook`), with
 * the batch: what to send with it, null for nothing, or an error to refuse the append with —
 * it then rejects with that error and nothing is sent. Must not throw.
 */
export type AppendHook = (entries: readonly SessionEntry[]) => AppendExtras | Error | null;

/** The extra writes a cancelled transaction refused, or null when it refused none of them. */
export function extraRefusals(error: unknown, input: TransactWriteItemsCommandInput, extraCount: number): ExtraRefusal[] | null {
  if (extraCount === 0 || sdkErrorName(error) !== 'TransactionCanceledException') return null;
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string; Item?: Record<string, AttributeValue> }> }).CancellationReasons ?? [];
  const offset = (input.TransactItems?.length ?? 0) - extraCount;
  const refused: ExtraRefusal[] = [];
  for (let i = offset; i < reasons.length; i++) {
    if (reasons[i]?.Code === 'ConditionalCheckFailed') refused.push({ index: i - offset, item: reasons[i]?.Item });
  }
  return refused.length > 0 ? refused : null;
}

/**
 * Sends extras as a transaction of their own, with no append — the usage ledger's settlement
 * that no append carried, a compaction's reservation — refused and retried as an append's
 * are: `refused` answers an error to reject with, or other writes to send instead (at most
 * 3 times). Each attempt under its own
 * `ClientRequestToken`, so that the SDK's retry of an attempt whose answer was lost does
 * not write twice. Nothing to send is nothing sent.
 */
export async function sendExtras(client: DynamoDBClient, extras: AppendExtras): Promise<void> {
  let current = extras;
  for (let resent = 0; ; resent++) {
    if (current.writes.length > 0) {
      const input = { TransactItems: [...current.writes], ClientRequestToken: randomUUID() };
      try {
        await sendTransaction(client, input);
      } catch (error) {
        const refused = extraRefusals(error, input, current.writes.length);
        if (refused === null || resent >= 3) throw error;
        const next = await current.refused(refused);
        if (next instanceof Error) throw next;
        current = next;
        continue;
      }
    }
    current.committed?.();
    return;
  }
}
