/**
 * The answer a running turn has produced so far, readable by any process at most about a
 * second behind: one item per session (`sk = P#TURN`, sorting after META, so a follower's
 * Query from its cached count reads it with no extra request), written by the turn at most
 * once a second, and deleted by the transaction that stores the message it stands for. It
 * names the lease of the turn that wrote it: a reader trusts it only while META's live lease
 * is that one (a crashed turn's is ignored, overwritten by the next turn's, and expires by TTL).
 */
import { GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { AssistantMessage } from '@panto/core';
import type { HeldLease } from '../meta/meta-item.js';
import { isLive } from '../meta/visibility.js';
import { ATTR } from '../table/attributes.js';
import { sessionPk } from '../table/keys.js';

/** The sort key of a session's partial answer item. */
export const PARTIAL_SK = 'P#TURN';
/** A partial answer item outlives its turn by at most this much (DynamoDB TTL), if nothing deletes it. */
const PARTIAL_TTL_SECONDS = 24 * 3600;
/**
 * A partial answer bigger than this is not written (the item limit is 400 KB, and a follower
 * reads it every second): readers see the last one that fit, then the message.
 */
export const MAX_PARTIAL_BYTES = 64 * 1024;

/** The message a turn's model is writing, before it is stored. No `stop_reason`: it has not stopped. */
export type PartialMessage = Omit<AssistantMessage, 'stop_reason' | 'raw_stop_reason' | 'error_message'>;

export interface PartialAnswer {
  /** The lease of the turn that wrote it. */
  leaseId: string;
  message: PartialMessage;
  /** ISO-8601 time it was written. */
  updatedAt: string;
}

export function partialKey(sessionId: string): Record<string, AttributeValue> {
  return { [ATTR.pk]: { S: sessionPk(sessionId) }, [ATTR.sk]: { S: PARTIAL_SK } };
}

/** Writes (replaces) the session's partial answer: one unconditional PutItem. False when it is too big to write. */
export async function putPartial(client: DynamoDBClient, tableName: string, sessionId: string, partial: PartialAnswer): Promise<boolean> {
  const json = JSON.stringify(partial.message);
  if (Buffer.byteLength(json) > MAX_PARTIAL_BYTES) return false;
  await client.send(
    new PutItemCommand({
      TableName: tableName,
      Item: {
        ...partialKey(sessionId),
        [ATTR.leaseId]: { S: partial.leaseId },
        [ATTR.partialMessage]: { S: json },
        [ATTR.updatedAt]: { S: partial.updatedAt },
        [ATTR.expiresAt]: { N: String(Math.floor(Date.parse(partial.updatedAt) / 1000) + PARTIAL_TTL_SECONDS) },
      },
    }),
  );
  return true;
}

/** The Delete of the partial answer item, for the transaction that stores its message. */
export function deletePartialItem(tableName: string, sessionId: string): TransactWriteItem {
  return { Delete: { TableName: tableName, Key: partialKey(sessionId) } };
}

/** Decodes a partial answer item (from a Query or a GetItem); null when it is not one. */
export function decodePartial(item: Record<string, AttributeValue> | undefined): PartialAnswer | null {
  const leaseId = item?.[ATTR.leaseId]?.S;
  const json = item?.[ATTR.partialMessage]?.S;
  const updatedAt = item?.[ATTR.updatedAt]?.S;
  if (leaseId === undefined || json === undefined || updatedAt === undefined) return null;
  try {
    const message = JSON.parse(json) as PartialMessage;
    return message !== null && typeof message === 'object' && message.role === 'assistant' && Array.isArray(message.content)
      ? { leaseId, message, updatedAt }
      : null;
  } catch {
    // Not the JSON a partial writer puts: no answer so far to show (the next chunk's write replaces it).
    return null;
  }
}

/** The session's partial answer, consistently read (one GetItem). */
export async function getPartial(client: DynamoDBClient, tableName: string, sessionId: string): Promise<PartialAnswer | null> {
  const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: partialKey(sessionId), ConsistentRead: true }));
  return decodePartial(Item);
}

/** `partial` if it belongs to the turn `lease` says is running at `nowMs`; else null. */
export function partialOfRunning(partial: PartialAnswer | null, lease: HeldLease | null, nowMs: number): PartialAnswer | null {
  return partial !== null && lease !== null && isLive(lease, nowMs) && lease.leaseId === partial.leaseId ? partial : null;
}
