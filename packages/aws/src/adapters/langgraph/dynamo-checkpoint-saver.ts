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
import { getTupleOf } from './checkpoint-read.js';
import { deleteThreadItems } from './delete-thread.js';
import { putCheckpoint, putPendingWrites } from './checkpoint-write.js';
import type { SaverContext } from './saver-context.js';

export interface DynamoCheckpointSaverOptions extends Omit<AdapterOptions, 'clock'> {
  /** How values are serialized (default: LangGraph's `JsonPlusSerializer`). */
  serde?: SerializerProtocol;
}

/**
 * A LangGraph checkpointer on DynamoDB — the table `createTable` makes, big values in S3.
 * A checkpoint and the channel values it changed are one transaction; a task's pending
 * writes are one transaction; a checkpoint that continues a run commits only while its
 * parent is still the thread's newest, so two runs on one thread cannot silently fork it
 * (the later gets `CheckpointConflictError`). Channel versions carry a random suffix (as
 * LangGraph's Python savers do), so a deliberate fork never overwrites another branch's values.
 *
 * @example
 * import { DynamoCheckpointSaver } from '@panto/aws/langgraph';
 *
 * const checkpointer = new DynamoCheckpointSaver({ client: new DynamoDBClient({}), tableName: 'panto' });
 * const graph = builder.compile({ checkpointer });
 * await graph.invoke(input, { configurable: { thread_id: 'thread-1' } });
 */
export class DynamoCheckpointSaver extends BaseCheckpointSaver<string | number> {
  readonly #options: DynamoCheckpointSaverOptions;

  constructor(options: DynamoCheckpointSaverOptions) {
    super(options.serde);
    this.#options = options;
  }

  get #context(): SaverContext {
    const { client, tableName, s3, retry } = logContext(this.#options, null);
    return { client, tableName, s3, retry, serde: this.serde };
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
    const parent = config.configurable.checkpoint_id;
    await putCheckpoint(this.#context, {
      threadId,
      ns,
      parent: typeof parent === 'string' && parent !== '' ? parent : undefined,
      checkpoint,
      metadata,
      newVersions,
    });
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

  /**
   * The next version of a channel: `<32-digit counter>.<16 random digits>`, as LangGraph's
   * Python savers make them. They sort in order, and two branches that both move a channel
   * from one version never make the same one — so no branch's value is ever another's.
   */
  override getNextVersion(current: string | number | undefined): string {
    const counter = current === undefined ? 0 : typeof current === 'number' ? current : Number.parseInt(current.split('.')[0] ?? '0', 10);
    return `${String(counter + 1).padStart(32, '0')}.${Math.random().toFixed(16).slice(2)}`;
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
