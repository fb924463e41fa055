/**
 * Reading LangGraph checkpoints back: one checkpoint item (by id, or the namespace's newest),
 * then at once its pending writes (one Query) and the channel values its versions name
 * (BatchGetItem) — all consistent reads — rebuilt into a `CheckpointTuple`.
 */
import {
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  GetItemCommand,
  QueryCommand,
  type AttributeValue,
  type KeysAndAttributes,
} from '@aws-sdk/client-dynamodb';
import {
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  getCheckpointId,
  maxChannelVersion,
  TASKS,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import { namesFor } from '../../table/expressions.js';
import { ADAPTER_ATTR } from '../shared/adapter-attributes.js';
import { PARTITION_PREFIX } from '../shared/adapter-expressions.js';
import { fromKeyPart } from '../shared/adapter-keys.js';
import { parseLines, readItemText } from '../shared/text-items.js';
import type { CheckpointRecord, WriteLine } from './checkpoint-write.js';
import { blobSk, checkpointPrefix, checkpointSk, itemKey, threadPk, writesPrefix } from './checkpoint-keys.js';
import { type SaverContext, sourcesKey, threadSource } from './saver-context.js';
import { deserialize, type Serialized } from './serialized.js';

/** BatchGetItem takes at most 100 keys; what it leaves unprocessed is asked for again, this many times. */
const BATCH_GET_SIZE = 100;
const BATCH_GET_ATTEMPTS = 8;

/** A checkpoint item, read and parsed. */
export interface StoredCheckpoint {
  threadId: string;
  ns: string;
  id: string;
  record: CheckpointRecord;
}

/** The checkpoint `id` of the namespace, or (without an id) its newest; undefined when there is none. */
export async function readCheckpoint(context: SaverContext, threadId: string, ns: string, id: string | undefined): Promise<StoredCheckpoint | undefined> {
  const pk = threadPk(threadId);
  let item: Record<string, AttributeValue> | undefined;
  if (id !== undefined) {
    ({ Item: item } = await context.client.send(
      new GetItemCommand({ TableName: context.tableName, Key: itemKey(pk, checkpointSk(ns, id)), ConsistentRead: true }),
    ));
  } else {
    const page = await context.client.send(
      new QueryCommand({
        TableName: context.tableName,
        KeyConditionExpression: PARTITION_PREFIX,
        ExpressionAttributeNames: namesFor(PARTITION_PREFIX),
        ExpressionAttributeValues: { ':pk': { S: pk }, ':prefix': { S: checkpointPrefix(ns) } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    item = page.Items?.[0];
  }
  return item === undefined ? undefined : storedCheckpoint(context, threadId, ns, item);
}

/** Parses a checkpoint item (its text fetched from S3 when offloaded). */
export async function storedCheckpoint(context: SaverContext, threadId: string, ns: string, item: Record<string, AttributeValue>): Promise<StoredCheckpoint> {
  const pk = threadPk(threadId);
  const sk = item[ADAPTER_ATTR.sk]?.S ?? '';
  const source = threadSource(context, pk, sk);
  const text = await readItemText(item, context.s3?.client, source, `langgraph:${threadId}`);
  const [record] = parseLines(text.text, 1, source) as [CheckpointRecord];
  const id = fromKeyPart(sk.slice(checkpointPrefix(ns).length));
  context.sources.set(sourcesKey(threadId, ns, id), record.sources);
  return { threadId, ns, id, record };
}

/** The stored checkpoint as LangGraph's tuple: its channel values and pending writes read back. */
export async function tupleOf(context: SaverContext, stored: StoredCheckpoint): Promise<CheckpointTuple> {
  const { threadId, ns, id, record } = stored;
  const [checkpointWithout, metadata] = (await Promise.all([deserialize(context.serde, record.checkpoint), deserialize(context.serde, record.metadata)])) as [
    Omit<Checkpoint, 'channel_values'>,
    CheckpointMetadata,
  ];
  const [values, writes] = await Promise.all([
    channelValues(context, threadId, ns, checkpointWithout.channel_versions, record.sources),
    pendingWrites(context, threadId, ns, id),
  ]);
  const checkpoint: Checkpoint = { ...checkpointWithout, channel_values: values };
  // Checkpoints before format 4 kept the sends of the step before as the parent's TASKS writes.
  if (checkpoint.v < 4 && record.parent !== null) await migratePendingSends(context, checkpoint, threadId, ns, record.parent);
  const configurable = { thread_id: threadId, checkpoint_ns: ns };
  return {
    config: { configurable: { ...configurable, checkpoint_id: id } },
    checkpoint,
    metadata,
    pendingWrites: await Promise.all(
      writes.map(async ([taskId, channel, value]) => [taskId, channel, await deserialize(context.serde, value)] as CheckpointPendingWrite),
    ),
    ...(record.parent === null ? {} : { parentConfig: { configurable: { ...configurable, checkpoint_id: record.parent } } }),
  };
}

/** The checkpoint a `getTuple` config names (its id, or the newest), as a tuple; undefined without a thread or a checkpoint. */
export async function getTupleOf(context: SaverContext, configurable: Record<string, unknown> | undefined): Promise<CheckpointTuple | undefined> {
  const threadId = configurable?.thread_id;
  if (typeof threadId !== 'string' || threadId === '') return undefined;
  const ns = typeof configurable?.checkpoint_ns === 'string' ? configurable.checkpoint_ns : '';
  const id = getCheckpointId({ configurable: configurable ?? {} });
  const stored = await readCheckpoint(context, threadId, ns, id === '' ? undefined : id);
  return stored === undefined ? undefined : tupleOf(context, stored);
}

async function migratePendingSends(context: SaverContext, checkpoint: Checkpoint, threadId: string, ns: string, parent: string): Promise<void> {
  const sends = (await pendingWrites(context, threadId, ns, parent)).filter(([, channel]) => channel === TASKS);
  checkpoint.channel_values[TASKS] = await Promise.all(sends.map(([, , value]) => deserialize(context.serde, value)));
  const versions = Object.values(checkpoint.channel_versions);
  checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : 1;
}

/**
 * The values the versions name, by channel, read where `sources` says each was stored; a
 * channel with no source, or whose version names no value (emptied), is left out.
 */
async function channelValues(
  context: SaverContext,
  threadId: string,
  ns: string,
  versions: Checkpoint['channel_versions'],
  sources: Readonly<Record<string, string>>,
): Promise<Record<string, unknown>> {
  const pk = threadPk(threadId);
  const channels = new Map(
    Object.entries(versions).flatMap(([channel, version]) => {
      const source = sources[channel];
      return source === undefined ? [] : [[blobSk(ns, channel, version, source), channel] as const];
    }),
  );
  const items = await batchGet(
    context,
    [...channels.keys()].map((sk) => itemKey(pk, sk)),
  );
  const values: Record<string, unknown> = {};
  await Promise.all(
    items.map(async (item) => {
      const sk = item[ADAPTER_ATTR.sk]?.S ?? '';
      const source = threadSource(context, pk, sk);
      const text = await readItemText(item, context.s3?.client, source, `langgraph:${threadId}`);
      const [value] = parseLines(text.text, 1, source) as [Serialized | null];
      if (value !== null) values[channels.get(sk)!] = await deserialize(context.serde, value);
    }),
  );
  return values;
}

/** Every item of `keys` that exists (consistent; 100 to a request, unprocessed keys asked for again). */
async function batchGet(context: SaverContext, keys: Array<Record<string, AttributeValue>>): Promise<Array<Record<string, AttributeValue>>> {
  const found: Array<Record<string, AttributeValue>> = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_SIZE) {
    let request: Record<string, KeysAndAttributes> | undefined = {
      [context.tableName]: { Keys: keys.slice(start, start + BATCH_GET_SIZE), ConsistentRead: true },
    };
    for (let attempt = 0; request !== undefined && Object.keys(request).length > 0; attempt++) {
      if (attempt >= BATCH_GET_ATTEMPTS)
        throw new Error(`DynamoDB left keys of ${context.tableName} unprocessed after ${BATCH_GET_ATTEMPTS} BatchGetItem attempts`);
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1_000, 50 * 2 ** attempt)));
      const output: BatchGetItemCommandOutput = await context.client.send(new BatchGetItemCommand({ RequestItems: request }));
      found.push(...(output.Responses?.[context.tableName] ?? []));
      request = output.UnprocessedKeys;
    }
  }
  return found;
}

/** A checkpoint's pending writes, in LangGraph's order (task path, task id, index): `[task, channel, value]`. */
async function pendingWrites(context: SaverContext, threadId: string, ns: string, checkpointId: string): Promise<Array<[string, string, Serialized]>> {
  const pk = threadPk(threadId);
  const prefix = writesPrefix(ns, checkpointId);
  const writes: Array<{ sortKey: ReturnType<typeof writesSortKey>; write: [string, string, Serialized] }> = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await context.client.send(
      new QueryCommand({
        TableName: context.tableName,
        KeyConditionExpression: PARTITION_PREFIX,
        ExpressionAttributeNames: namesFor(PARTITION_PREFIX),
        ExpressionAttributeValues: { ':pk': { S: pk }, ':prefix': { S: prefix } },
        ConsistentRead: true,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    const parsed = await Promise.all(
      (page.Items ?? []).map(async (item) => {
        const sk = item[ADAPTER_ATTR.sk]?.S ?? '';
        const source = threadSource(context, pk, sk);
        const text = await readItemText(item, context.s3?.client, source, `langgraph:${threadId}`);
        const taskId = fromKeyPart(sk.slice(prefix.length, sk.lastIndexOf('#')));
        return (parseLines(text.text, text.count, source) as WriteLine[]).map(([index, channel, value, taskPath]) => ({
          sortKey: writesSortKey(taskPath, taskId, index),
          write: [taskId, channel, value] as [string, string, Serialized],
        }));
      }),
    );
    writes.push(...parsed.flat());
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return writes.sort((a, b) => compareWritesSortKeys(a.sortKey, b.sortKey)).map((entry) => entry.write);
}
