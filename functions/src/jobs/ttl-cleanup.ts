/**
 * The DynamoDB Streams consumer that cleans up after TTL: when DynamoDB's TTL deletes a
 * META item — an expired session's, or the tombstone of a delete that did not finish — the
 * entry items, offloaded texts and exports stay behind (only META carries `expires_at`);
 * this purges them. The keys-only record names the session, which is all the purge needs.
 * Everything else on the stream is ignored.
 *
 * Failures are reported per record (`batchItemFailures`; the event source mapping sets
 * `ReportBatchItemFailures`): Lambda retries the stream from the first failed record on.
 */
import { isValidSessionId, META_SK, SESSION_PK_PREFIX, type PurgeResult } from '@panto/aws';

/** A DynamoDB attribute value as a stream record carries it (only strings matter here). */
export interface StreamAttributeValue {
  S?: string;
  N?: string;
  B?: string;
}

/** The parts of a DynamoDB Streams record this consumer reads (a subset of `@types/aws-lambda`'s). */
export interface DynamoDBStreamRecord {
  eventID?: string;
  eventName?: 'INSERT' | 'MODIFY' | 'REMOVE';
  eventSource?: string;
  dynamodb?: {
    Keys?: { [name: string]: StreamAttributeValue };
    SequenceNumber?: string;
  };
  /** Set on deletions made by a service: `{ type: 'Service', principalId: 'dynamodb.amazonaws.com' }` for TTL. */
  userIdentity?: { type?: string; principalId?: string };
}

export interface DynamoDBStreamEvent {
  Records: DynamoDBStreamRecord[];
}

/** What a stream handler returns when its event source mapping reports batch item failures. */
export interface DynamoDBBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/** `purgeSessionItems`, bound to the table and bucket (offloaded texts and exports). */
export type PurgeSession = (sessionId: string) => Promise<PurgeResult>;

export interface TtlCleanupDeps {
  purge: PurgeSession;
  log?: (message: string, error: unknown) => void;
}

/** The session whose META item TTL deleted, or null for any other record. */
export function ttlExpiredSessionId(record: DynamoDBStreamRecord): string | null {
  if (record.eventName !== 'REMOVE') return null;
  if (record.userIdentity?.type !== 'Service' || record.userIdentity.principalId !== 'dynamodb.amazonaws.com') return null;
  const keys = record.dynamodb?.Keys;
  const pk = keys?.pk?.S;
  if (keys?.sk?.S !== META_SK || pk === undefined || !pk.startsWith(SESSION_PK_PREFIX)) return null;
  const sessionId = pk.slice(SESSION_PK_PREFIX.length);
  return isValidSessionId(sessionId) ? sessionId : null;
}

/**
 * The stream handler: purges each TTL-expired session in order; on the first failure it
 * stops and reports that record (and, by Lambda's rule, everything after it) for retry.
 * The purge is idempotent, so a retried record is harmless.
 */
export function ttlCleanupHandler(deps: TtlCleanupDeps): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  const log = deps.log ?? ((message: string, error: unknown) => console.error(`panto: ${message}`, error));
  return async (event) => {
    for (const record of event.Records) {
      const sessionId = ttlExpiredSessionId(record);
      if (sessionId === null) continue;
      try {
        await deps.purge(sessionId);
      } catch (error) {
        const sequenceNumber = record.dynamodb?.SequenceNumber;
        log(`purging expired session ${sessionId} failed`, error);
        // Without a sequence number the record cannot be named: fail the whole batch.
        if (sequenceNumber === undefined) throw error;
        return { batchItemFailures: [{ itemIdentifier: sequenceNumber }] };
      }
    }
    return { batchItemFailures: [] };
  };
}
