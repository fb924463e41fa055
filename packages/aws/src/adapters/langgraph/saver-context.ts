/** What the LangGraph saver's reads and writes need. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { S3Location } from '../../entries/offload.js';
import type { RetryPolicy } from '../../table/transaction-failures.js';
import type { TextHome } from '../shared/text-items.js';
import { threadObjectId } from './checkpoint-keys.js';

export interface SaverContext {
  client: DynamoDBClient;
  tableName: string;
  s3: S3Location | undefined;
  retry: RetryPolicy;
  serde: SerializerProtocol;
}

/** Where a thread's texts go in S3, and its name in errors. */
export function threadHome(context: SaverContext, threadId: string): TextHome {
  return { s3: context.s3, objectId: threadObjectId(threadId), name: `langgraph:${threadId}` };
}

/** Names an item of a thread in a `SessionCorruptError`. */
export function threadSource(context: SaverContext, pk: string, sk: string): string {
  return `dynamodb:${context.tableName}/${pk}/${sk}`;
}
