/**
 * `list()`: the checkpoints a config and its options select, newest first (by checkpoint id,
 * across namespaces and threads), read lazily — one paginated, descending Query per namespace
 * of each thread, merged — so a `limit` reads little. Without a thread, the threads come from
 * the `byOwner` index (eventually consistent).
 */
import { isDeepStrictEqual } from 'node:util';
import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { GSI_BY_OWNER } from '../../table/keys.js';
import { namesFor } from '../../table/expressions.js';
import { ADAPTER_ATTR } from '../shared/adapter-attributes.js';
import { LISTED_UNDER, PARTITION_PREFIX } from '../shared/adapter-expressions.js';
import { fromKeyPart, LANGGRAPH_PK_PREFIX, LOG_HEAD_SK_PREFIX, subOfHeadSk } from '../shared/adapter-keys.js';
import { readCheckpoint, storedCheckpoint, tupleOf, type StoredCheckpoint } from './checkpoint-read.js';
import { checkpointPrefix, checkpointSk, THREADS_INDEX_KEY, threadPk } from './checkpoint-keys.js';
import type { SaverContext } from './saver-context.js';
import { deserialize } from './serialized.js';

/** What `list()` selects. */
export interface ListSelection {
  threadId?: string;
  ns?: string;
  /** Only this checkpoint. */
  checkpointId?: string;
  /** Only checkpoints older than this id. */
  before?: string;
  limit?: number;
  /** Metadata keys that must equal these values. */
  filter?: Record<string, unknown>;
}

export async function* listCheckpoints(context: SaverContext, selection: ListSelection): AsyncGenerator<CheckpointTuple> {
  let left = selection.limit ?? Number.POSITIVE_INFINITY;
  if (left <= 0) return;
  const lines = (await namespacesOf(context, selection)).map(({ threadId, ns }) => checkpointsNewestFirst(context, threadId, ns, selection));
  for await (const stored of mergeNewestFirst(lines)) {
    if (selection.filter !== undefined) {
      const metadata = (await deserialize(context.serde, stored.record.metadata)) as CheckpointMetadata;
      if (!Object.entries(selection.filter).every(([key, value]) => isDeepStrictEqual((metadata as Record<string, unknown>)[key], value))) continue;
    }
    yield await tupleOf(context, stored);
    if (--left <= 0) return;
  }
}

/** The (thread, namespace) pairs the selection covers. */
async function namespacesOf(context: SaverContext, selection: ListSelection): Promise<Array<{ threadId: string; ns: string }>> {
  if (selection.threadId !== undefined && selection.ns !== undefined) return [{ threadId: selection.threadId, ns: selection.ns }];
  const heads =
    selection.threadId === undefined
      ? await queryAll(context, {
          IndexName: GSI_BY_OWNER,
          KeyConditionExpression: LISTED_UNDER,
          ExpressionAttributeValues: { ':gsi1pk': { S: THREADS_INDEX_KEY } },
        })
      : await queryAll(context, {
          KeyConditionExpression: PARTITION_PREFIX,
          ExpressionAttributeValues: { ':pk': { S: threadPk(selection.threadId) }, ':prefix': { S: LOG_HEAD_SK_PREFIX } },
          ConsistentRead: true,
        });
  const pairs: Array<{ threadId: string; ns: string }> = [];
  for (const item of heads) {
    const pk = item[ADAPTER_ATTR.pk]?.S ?? '';
    const ns = subOfHeadSk(item[ADAPTER_ATTR.sk]?.S ?? '');
    if (!pk.startsWith(LANGGRAPH_PK_PREFIX) || ns === undefined) continue;
    if (selection.ns === undefined || selection.ns === ns) pairs.push({ threadId: fromKeyPart(pk.slice(LANGGRAPH_PK_PREFIX.length)), ns });
  }
  return pairs;
}

async function queryAll(
  context: SaverContext,
  input: { IndexName?: string; KeyConditionExpression: string; ExpressionAttributeValues: Record<string, AttributeValue>; ConsistentRead?: boolean },
): Promise<Array<Record<string, AttributeValue>>> {
  const items: Array<Record<string, AttributeValue>> = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await context.client.send(
      new QueryCommand({
        TableName: context.tableName,
        ...input,
        ExpressionAttributeNames: namesFor(input.KeyConditionExpression),
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** One namespace's checkpoints the selection allows, newest first, a page at a time. */
async function* checkpointsNewestFirst(context: SaverContext, threadId: string, ns: string, selection: ListSelection): AsyncGenerator<StoredCheckpoint> {
  if (selection.checkpointId !== undefined) {
    const stored = await readCheckpoint(context, threadId, ns, selection.checkpointId);
    if (stored !== undefined && (selection.before === undefined || stored.id < selection.before)) yield stored;
    return;
  }
  const prefix = checkpointPrefix(ns);
  const condition = selection.before === undefined ? PARTITION_PREFIX : '#pk = :pk AND #sk BETWEEN :prefix AND :before';
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await context.client.send(
      new QueryCommand({
        TableName: context.tableName,
        KeyConditionExpression: condition,
        ExpressionAttributeNames: namesFor(condition),
        ExpressionAttributeValues: {
          ':pk': { S: threadPk(threadId) },
          ':prefix': { S: prefix },
          ...(selection.before === undefined ? {} : { ':before': { S: checkpointSk(ns, selection.before) } }),
        },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: 25,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    for (const item of page.Items ?? []) {
      const stored = await storedCheckpoint(context, threadId, ns, item);
      if (selection.before === undefined || stored.id < selection.before) yield stored;
    }
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
}

/** Merges streams that are each newest first into one (by checkpoint id, descending). */
async function* mergeNewestFirst(streams: ReadonlyArray<AsyncGenerator<StoredCheckpoint>>): AsyncGenerator<StoredCheckpoint> {
  const heads = await Promise.all(streams.map(async (stream) => ({ stream, next: await stream.next() })));
  for (;;) {
    let newest: (typeof heads)[number] | undefined;
    for (const head of heads) if (!head.next.done && (newest === undefined || head.next.value.id > (newest.next.value as StoredCheckpoint).id)) newest = head;
    if (newest === undefined) return;
    yield newest.next.value as StoredCheckpoint;
    newest.next = await newest.stream.next();
  }
}
