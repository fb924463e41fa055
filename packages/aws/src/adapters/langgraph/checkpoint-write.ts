/**
 * A LangGraph checkpoint's writes. `put`: one transaction — the namespace's head moved to the
 * new checkpoint (conditioned on still being its parent when the checkpoint continues a run's
 * line), the checkpoint, and the values of the channels that changed (big ones in S3, put
 * there first). `putWrites`: a task's pending writes, packed into items, in one transaction.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { type Checkpoint, type CheckpointMetadata, type ChannelVersions, type PendingWrite, WRITES_IDX_MAP } from '@langchain/langgraph-checkpoint';
import { CheckpointConflictError } from '../../errors.js';
import { batchWriteAll } from '../../table/batch-write.js';
import { namesFor } from '../../table/expressions.js';
import { ADAPTER_ATTR } from '../shared/adapter-attributes.js';
import { CHECKPOINT_CONTINUES_CONDITION, CHECKPOINT_HEAD_UPDATE, WRITE_PUT_CONDITION } from '../shared/adapter-expressions.js';
import { failedActions, sendTransaction } from '../shared/transact.js';
import { placeEach, placeLines, textItem, type PlacedItem } from '../shared/text-items.js';
import { blobSk, checkpointSk, headSk, itemKey, THREADS_INDEX_KEY, threadIndexSk, threadPk, writeSk } from './checkpoint-keys.js';
import { threadHome, type SaverContext } from './saver-context.js';
import { serialize, type Serialized } from './serialized.js';

/** Actions one transaction holds, besides the head and the checkpoint: more changed channels are written before it. */
const BLOBS_IN_TRANSACTION = 97;

/** A checkpoint item's one line. */
export interface CheckpointRecord {
  /** The checkpoint without its channel values (they are blobs, by version). */
  checkpoint: Serialized;
  metadata: Serialized;
  parent: string | null;
  /** For each channel with a value: the checkpoint whose put stored it (this one, or an ancestor). */
  sources: Record<string, string>;
}

export interface PutCheckpoint {
  threadId: string;
  ns: string;
  /** The checkpoint this one follows (`config.configurable.checkpoint_id`), if any. */
  parent: string | undefined;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  newVersions: ChannelVersions;
  /** The parent's `sources` (empty without a parent): where the channels this put leaves alone keep their values. */
  parentSources: Readonly<Record<string, string>>;
}

/** Where each channel of the checkpoint has its value: this put for the channels it changed, else where the parent had it. */
export function sourcesOf(put: Pick<PutCheckpoint, 'checkpoint' | 'newVersions' | 'parentSources'>): Record<string, string> {
  const sources: Record<string, string> = {};
  for (const channel of Object.keys(put.checkpoint.channel_versions)) {
    const source = Object.hasOwn(put.newVersions, channel) ? put.checkpoint.id : put.parentSources[channel];
    if (source !== undefined) sources[channel] = source;
  }
  for (const channel of Object.keys(put.newVersions)) sources[channel] = put.checkpoint.id;
  return sources;
}

/**
 * Writes a checkpoint and its changed channel values as one transaction. A checkpoint that
 * continues a line (it has a parent, and LangGraph did not mark it a deliberate branch:
 * `source` other than `fork` / `update`) commits only while its parent is still the
 * namespace's head — else `CheckpointConflictError`, and nothing is written.
 */
export async function putCheckpoint(context: SaverContext, put: PutCheckpoint): Promise<CheckpointRecord> {
  const pk = threadPk(put.threadId);
  const { channel_values: values, ...rest } = put.checkpoint;
  const record: CheckpointRecord = {
    checkpoint: await serialize(context.serde, rest),
    metadata: await serialize(context.serde, put.metadata),
    parent: put.parent ?? null,
    sources: sourcesOf(put),
  };
  const blobs = await Promise.all(
    Object.entries(put.newVersions).map(async ([channel, version]) => ({
      sk: blobSk(put.ns, channel, version, put.checkpoint.id),
      // A channel that changed to empty: its version names no value.
      line: JSON.stringify(Object.hasOwn(values, channel) ? await serialize(context.serde, (values as Record<string, unknown>)[channel]) : null),
    })),
  );
  const lines = [{ sk: checkpointSk(put.ns, put.checkpoint.id), line: JSON.stringify(record) }, ...blobs];
  const placed = await placeEach(
    threadHome(context, put.threadId),
    lines.map((entry) => entry.line),
    randomUUID(),
  );
  const puts = placed.map((item, i) => ({ Put: { TableName: context.tableName, Item: textItem({ pk, sk: lines[i]!.sk }, item, null) } }));
  // Values past what one transaction holds go first: nothing names them until the checkpoint commits.
  const early = puts.splice(2 + BLOBS_IN_TRANSACTION);
  if (early.length > 0)
    await batchWriteAll(
      context.client,
      context.tableName,
      early.map((action) => ({ PutRequest: { Item: action.Put.Item } })),
    );
  const result = await sendTransaction(context.client, { TransactItems: [headUpdate(context, put), ...puts] }, context.retry);
  if (result.kind === 'committed') return record;
  if (result.kind === 'conflict') {
    const current = result.old?.[ADAPTER_ATTR.head]?.S ?? null;
    throw new CheckpointConflictError(put.threadId, put.ns, put.parent ?? '', current, { cause: result.error });
  }
  throw result.error;
}

function continuesLine(put: PutCheckpoint): boolean {
  return put.parent !== undefined && put.metadata.source !== 'fork' && put.metadata.source !== 'update';
}

function headUpdate(context: SaverContext, put: PutCheckpoint): TransactWriteItem {
  const values: Record<string, AttributeValue> = {
    ':head': { S: put.checkpoint.id },
    ':gsi1pk': { S: THREADS_INDEX_KEY },
    ':gsi1sk': { S: threadIndexSk(put.threadId, put.ns) },
  };
  const continues = continuesLine(put);
  if (continues) values[':parent'] = { S: put.parent! };
  return {
    Update: {
      TableName: context.tableName,
      Key: itemKey(threadPk(put.threadId), headSk(put.ns)),
      UpdateExpression: CHECKPOINT_HEAD_UPDATE,
      ...(continues ? { ConditionExpression: CHECKPOINT_CONTINUES_CONDITION } : {}),
      ExpressionAttributeNames: namesFor(CHECKPOINT_HEAD_UPDATE, continues ? CHECKPOINT_CONTINUES_CONDITION : ''),
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** One stored pending write: `[index, channel, value, task path]`. */
export type WriteLine = [number, string, Serialized, string];

export interface PutWrites {
  threadId: string;
  ns: string;
  checkpointId: string;
  taskId: string;
  taskPath: string;
  writes: readonly PendingWrite[];
}

/**
 * Stores a task's pending writes, all or none. Regular writes keep the first value stored at
 * their index (a task run again writes nothing twice); LangGraph's special writes (errors,
 * interrupts, resumes, scheduled sends) replace what was there — as LangGraph's own savers do.
 */
export async function putPendingWrites(context: SaverContext, put: PutWrites): Promise<void> {
  if (put.writes.length === 0) return;
  const indexes = put.writes.map(([channel], i) => WRITES_IDX_MAP[channel] ?? i);
  const lines = await Promise.all(
    put.writes.map(async ([channel, value], i) =>
      JSON.stringify([indexes[i]!, channel, await serialize(context.serde, value), put.taskPath] satisfies WriteLine),
    ),
  );
  const upsert = put.writes.every(([channel]) => channel in WRITES_IDX_MAP);
  const placed = await placeLines(threadHome(context, put.threadId), lines, randomUUID());
  let actions = placed.map((item) => writeAction(context, put, item, indexes[item.planned.index]!, upsert));
  while (actions.length > 0) {
    const result = await sendTransaction(context.client, { TransactItems: actions }, context.retry);
    if (result.kind === 'committed') return;
    if (result.kind === 'verify') throw result.error;
    // Items a run of the task stored before: theirs stand; the rest go again.
    const refused = new Set(failedActions(result.error));
    if (refused.size === 0) throw result.error;
    actions = actions.filter((_, i) => !refused.has(i));
  }
}

function writeAction(context: SaverContext, put: PutWrites, item: PlacedItem, index: number, upsert: boolean): TransactWriteItem {
  const pk = threadPk(put.threadId);
  return {
    Put: {
      TableName: context.tableName,
      Item: textItem({ pk, sk: writeSk(put.ns, put.checkpointId, put.taskId, index) }, item, null),
      ...(upsert ? {} : { ConditionExpression: WRITE_PUT_CONDITION, ExpressionAttributeNames: namesFor(WRITE_PUT_CONDITION) }),
    },
  };
}
