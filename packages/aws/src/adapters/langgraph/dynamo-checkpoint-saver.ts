/**
 * LangGraph.js's `BaseCheckpointSaver` on the sessions table — what AWS's DynamoDB saver is
 * for LangGraph in Python, with the guarantees of panto's write path (see docs/adapters.md).
 */
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import type { AdapterOptions } from '../shared/adapter-options.js';
import { logContext } from '../shared/adapter-options.js';
import { listCheckpoints } from './checkpoint-list.js';
import { getTupleOf, readCheckpoint } from './checkpoint-read.js';
import { deleteThreadItems } from './delete-thread.js';
import { putCheckpoint, putPendingWrites } from './checkpoint-write.js';
import { type SaverContext, SourcesCache, sourcesKey } from './saver-context.js';

export interface DynamoCheckpointSaverOptions extends Omit<AdapterOptions, 'clock'> {
  /** How values are serialized (default: LangGraph's `JsonPlusSerializer`). */
  serde?: SerializerProtocol;
}

/**
 * A LangGraph checkpointer on DynamoDB — the table `createTable` makes, big values in S3.
 * A checkpoint and the channel values it changed are one transaction; a task's pending
 * writes are one transaction; a checkpoint that continues a run commits only while its
 * parent is still the thread's newest, so two runs on one thread cannot silently fork it
 * (the later gets `CheckpointConflictError`). A channel value is keyed by the checkpoint that
 * wrote it as well as its version, so a deliberate branch never overwrites another's values.
 *
 * @example
 * import { DynamoCheckpointSaver } from '@panto/aws/langgraph';
 *
 * const checkpointer = new DynamoCheckpointSaver({ client: new DynamoDBClient({}), tableName: 'panto' });
 * const graph = builder.compile({ checkpointer });
 * await graph.invoke(input, { configurable: { thread_id: 'thread-1' } });
 */
export class DynamoCheckpointSaver extends BaseCheckpointSaver {
  readonly #options: DynamoCheckpointSaverOptions;
  readonly #sources = new SourcesCache();

  constructor(options: DynamoCheckpointSaverOptions) {
    super(options.serde);
    this.#options = options;
  }

  get #context(): SaverContext {
    const { client, tableName, s3, retry } = logContext(this.#options, null);
    return { client, tableName, s3, retry, serde: this.serde, sources: this.#sources };
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return getTupleOf(this.#context, config.configurable);
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const configurable = config.configurable ?? {};
    yield* listCheckpoints(this.#context, {
      ...stringField('threadId', configurable.thread_id),
      ...stringField('ns', configurable.checkpoint_ns),
      ...stringField('checkpointId', configurable.checkpoint_id),
      ...stringField('before', options?.before?.configurable?.checkpoint_id),
      ...(options?.limit === undefined ? {} : { limit: options.limit }),
      ...(options?.filter === undefined ? {} : { filter: options.filter }),
    });
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    if (config.configurable === undefined) throw new TypeError('put: config.configurable is missing');
    const threadId = requireThread(config.configurable.thread_id, 'put');
    const ns = namespaceOf(config.configurable.checkpoint_ns);
    const given = config.configurable.checkpoint_id;
    const parent = typeof given === 'string' && given !== '' ? given : undefined;
    const context = this.#context;
    const record = await putCheckpoint(context, {
      threadId,
      ns,
      parent,
      checkpoint,
      metadata,
      newVersions,
      parentSources: await this.#sourcesOf(threadId, ns, parent),
    });
    this.#sources.set(sourcesKey(threadId, ns, checkpoint.id), record.sources);
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ''): Promise<void> {
    const threadId = requireThread(config.configurable?.thread_id, 'putWrites');
    const checkpointId = config.configurable?.checkpoint_id;
    if (typeof checkpointId !== 'string' || checkpointId === '') throw new TypeError('putWrites: config.configurable.checkpoint_id is missing');
    await putPendingWrites(this.#context, { threadId, ns: namespaceOf(config.configurable?.checkpoint_ns), checkpointId, taskId, taskPath, writes });
  }

  /** Deletes every checkpoint, channel value and pending write of the thread, in every namespace, and their S3 objects. */
  override async deleteThread(threadId: string): Promise<void> {
    await deleteThreadItems(this.#context, requireThread(threadId, 'deleteThread'));
  }

  /** Where the parent's channels have their values: remembered from the read a run began with, else read. */
  async #sourcesOf(threadId: string, ns: string, parent: string | undefined): Promise<Readonly<Record<string, string>>> {
    if (parent === undefined) return {};
    return this.#sources.get(sourcesKey(threadId, ns, parent)) ?? (await readCheckpoint(this.#context, threadId, ns, parent))?.record.sources ?? {};
  }
}

function requireThread(value: unknown, operation: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${operation}: config.configurable.thread_id must be a non-empty string`);
  return value;
}

function namespaceOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function stringField<K extends string>(name: K, value: unknown): { [P in K]?: string } {
  return (typeof value === 'string' ? { [name]: value } : {}) as { [P in K]?: string };
}
