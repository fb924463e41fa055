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
  /** Where the channels of checkpoints this process has read or written have their values (see `sourcesKey`). */
  sources: SourcesCache;
}

/** The key of a checkpoint in a {@link SourcesCache}. */
export function sourcesKey(threadId: string, ns: string, checkpointId: string): string {
  return JSON.stringify([threadId, ns, checkpointId]);
}

/**
 * Checkpoints' `sources` — facts that never change once written — kept for the puts that
 * follow a read (a run reads its thread's newest checkpoint, then puts its child), so a put
 * need not read its parent again. Bounded: the oldest entries go first.
 */
export class SourcesCache {
  readonly #entries = new Map<string, Readonly<Record<string, string>>>();
  readonly #max: number;

  constructor(max = 10_000) {
    this.#max = max;
  }

  get(key: string): Readonly<Record<string, string>> | undefined {
    return this.#entries.get(key);
  }

  set(key: string, sources: Readonly<Record<string, string>>): void {
    this.#entries.delete(key);
    this.#entries.set(key, sources);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }
}

/** Where a thread's texts go in S3, and its name in errors. */
export function threadHome(context: SaverContext, threadId: string): TextHome {
  return { s3: context.s3, objectId: threadObjectId(threadId), name: `langgraph:${threadId}` };
}

/** Names an item of a thread in a `SessionCorruptError`. */
export function threadSource(context: SaverContext, pk: string, sk: string): string {
  return `dynamodb:${context.tableName}/${pk}/${sk}`;
}
