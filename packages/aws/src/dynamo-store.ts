import { randomUUID } from 'node:crypto';
import { GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  chainBatch,
  encodeBatchLines,
  ID_RULE,
  encodeHeader,
  InvalidSessionIdError,
  newestModel,
  newId,
  rebuildConversation,
  SESSION_FORMAT_VERSION,
  SessionNotFoundError,
  type ActiveModel,
  type DiskMessage,
  type LoadedSession,
  type SessionEntry,
  type SessionStore,
} from '@panto/core';
import { DEFAULT_RETRY_POLICY, sendAppend, type RetryPolicy } from './append.js';
import { packBatch, TRANSACTION_TEXT_LIMIT, type OffloadRef } from './entry-items.js';
import { OffloadRequiredError, SessionExistsError } from './errors.js';
import { CREATE_CONDITION, namesFor } from './expressions.js';
import { decodeMeta, isVisibleTo, titleOf, type MetaRecord, type SessionMetadata } from './metadata.js';
import { putOffload, type S3Location } from './offload.js';
import { readSession } from './read.js';
import { deleteObjects } from './s3-objects.js';
import {
  assertValidOwner,
  ATTR,
  errorName,
  isValidSessionId,
  META_SK,
  metaKey,
  ownerPk,
  ownerSk,
  sessionPk,
} from './table.js';

export interface DynamoStoreCreateOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Who the session belongs to (e.g. a JWT `sub`); only this owner can open it. */
  owner: string;
  /** Where to offload entry text that does not fit DynamoDB; without it such a batch is refused. */
  s3?: S3Location;
  /** The working folder, recorded in the JSONL header. */
  cwd?: string;
  /**
   * Expire the session this many seconds after its last append (DynamoDB TTL on the META
   * item; see docs/aws.md for what happens to its entry items). Never, when absent.
   */
  ttlSeconds?: number;
  /**
   * The provider and model the session starts with (an HTTP client chose them), reported by
   * `activeModel()` until an entry names one. None, when absent.
   */
  activeModel?: ActiveModel;
  /** The session id (default: a UUIDv7 from `ids`). */
  sessionId?: string;
  /** Tells the time for created/updated stamps (default: the system clock). */
  clock?: () => Date;
  /** Makes the session id when `sessionId` is absent (default: UUIDv7). */
  ids?: () => string;
  /** Retries of a contended, throttled or unanswered append before its error is rethrown (default 4). */
  maxRetries?: number;
}

export interface DynamoStoreOpenOptions {
  client: DynamoDBClient;
  tableName: string;
  sessionId: string;
  owner: string;
  s3?: S3Location;
  clock?: () => Date;
  maxRetries?: number;
}

interface Handle {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  s3: S3Location | undefined;
  clock: () => Date;
  retry: RetryPolicy;
}

/**
 * A session in DynamoDB: one META item and the entries packed into items under the
 * session's partition (see docs/aws.md). Every append is one conditional transaction —
 * all of the batch or nothing, and only if no other writer appended since this handle
 * last saw the session (`SessionConflictError` otherwise).
 *
 * @example
 * const store = await DynamoStore.create({ client, tableName: 'panto', owner: 'user-1', s3: { client: s3, bucket } });
 * const agent = new Agent({ provider }, { store });
 * // another request, later:
 * const resumed = await DynamoStore.open({ client, tableName: 'panto', owner: 'user-1', sessionId: store.sessionId() });
 * const { conversation, danglingUser } = await resumed.loadConversation();
 */
export class DynamoStore implements SessionStore {
  readonly #handle: Handle;
  readonly #id: string;
  readonly #ttlSeconds: number | null;
  #metadata: SessionMetadata;
  /** The parent of the next appended entry. */
  #parent: string | null;
  /** Ids of every entry, when this handle has seen them all (created or loaded); else null. */
  #ids: Set<string> | null;

  private constructor(handle: Handle, meta: MetaRecord, ids: Set<string> | null) {
    this.#handle = handle;
    this.#id = meta.metadata.id;
    this.#ttlSeconds = meta.ttlSeconds;
    this.#metadata = { ...meta.metadata };
    this.#parent = meta.nextParent;
    this.#ids = ids;
  }

  /** Starts a new, empty session (its META item). `SessionExistsError` if `sessionId` is taken. */
  static async create(options: DynamoStoreCreateOptions): Promise<DynamoStore> {
    assertValidOwner(options.owner);
    const id = options.sessionId ?? (options.ids ?? newId)();
    if (!isValidSessionId(id)) {
      throw new InvalidSessionIdError(id, `use ${ID_RULE}`);
    }
    if (options.ttlSeconds !== undefined && !(Number.isInteger(options.ttlSeconds) && options.ttlSeconds > 0)) {
      throw new RangeError('ttlSeconds must be a positive integer');
    }
    const clock = options.clock ?? (() => new Date());
    const now = clock();
    const createdAt = now.toISOString();
    const header = encodeHeader({
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id,
      timestamp: createdAt,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    const ttlSeconds = options.ttlSeconds ?? null;
    const expiresAt = ttlSeconds === null ? null : Math.floor(now.getTime() / 1000) + ttlSeconds;
    const activeModel = options.activeModel === undefined ? null : { ...options.activeModel };
    const item = metaItem({ id, owner: options.owner, createdAt, updatedAt: createdAt, header, ttlSeconds, expiresAt, activeModel });
    try {
      await options.client.send(
        new PutItemCommand({
          TableName: options.tableName,
          Item: item,
          ConditionExpression: CREATE_CONDITION,
          ExpressionAttributeNames: namesFor(CREATE_CONDITION),
        }),
      );
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') throw new SessionExistsError(id, { cause: error });
      throw error;
    }
    return new DynamoStore(
      handleOf(options),
      {
        metadata: { id, owner: options.owner, createdAt, updatedAt: createdAt, entryCount: 0, head: null, activeModel, title: null },
        header,
        nextParent: null,
        ttlSeconds,
        expiresAt,
        deletedAt: null,
      },
      new Set(),
    );
  }

  /**
   * A handle on an existing session of `owner`. A missing session, another owner's, an
   * expired one and a malformed id are all the same `SessionNotFoundError`.
   */
  static async open(options: DynamoStoreOpenOptions): Promise<DynamoStore> {
    assertValidOwner(options.owner);
    if (!isValidSessionId(options.sessionId)) throw new SessionNotFoundError(String(options.sessionId));
    const handle = handleOf(options);
    const { Item: item } = await options.client.send(
      new GetItemCommand({
        TableName: options.tableName,
        Key: metaKey(options.sessionId),
        ConsistentRead: true,
      }),
    );
    const meta = item === undefined ? null : decodeMeta(item, `dynamodb:${options.tableName}/${sessionPk(options.sessionId)}/${META_SK}`);
    if (!isVisibleTo(meta, options.owner, handle.clock().getTime())) throw new SessionNotFoundError(options.sessionId);
    return new DynamoStore(handle, meta, null);
  }

  sessionId(): string {
    return this.#id;
  }

  activeModel(): ActiveModel | null {
    return this.#metadata.activeModel;
  }

  /** The session as this handle last saw it (after create, open, an append or a load). */
  metadata(): SessionMetadata {
    return { ...this.#metadata, activeModel: this.#metadata.activeModel === null ? null : { ...this.#metadata.activeModel } };
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    if (batch.length === 0) return;
    const ids = this.#ids;
    const entries = chainBatch(batch, this.#parent, ids ?? (() => false));
    const expected = { head: this.#metadata.head, count: this.#metadata.entryCount };
    const planned = packBatch(encodeBatchLines(entries), expected.count);
    const refs = await this.#offload(planned);
    const now = this.#handle.clock();
    const updatedAt = now.toISOString();
    const model = newestModel(entries);
    const title = this.#metadata.title === null ? firstTitle(entries) : null;
    await sendAppend(
      this.#handle.client,
      {
        tableName: this.#handle.tableName,
        sessionId: this.#id,
        owner: this.#handle.owner,
        expected,
        entries,
        items: planned.map((item, i) => ({ planned: item, ref: refs[i] ?? null })),
        updatedAt,
        activeModel: model,
        title,
        expiresAt: this.#ttlSeconds === null ? null : Math.floor(now.getTime() / 1000) + this.#ttlSeconds,
      },
      randomUUID(),
      this.#handle.retry,
    ).catch(async (error: unknown) => {
      if (error instanceof SessionNotFoundError) await this.#discardOffloads(refs);
      throw error;
    });
    if (ids !== null) for (const entry of entries) ids.add(entry.id);
    // Like every store: the next append follows this batch. (META's next_parent, for handles
    // opened later, points at a trailing prompt's parent instead, as a load would.)
    this.#parent = entries[entries.length - 1]!.id;
    this.#metadata = {
      ...this.#metadata,
      updatedAt,
      entryCount: expected.count + entries.length,
      head: entries[entries.length - 1]!.id,
      activeModel: model ?? this.#metadata.activeModel,
      title: this.#metadata.title ?? title,
    };
  }

  /** Writes the offloaded items' text to S3 (in parallel), before the transaction. */
  async #offload(planned: ReturnType<typeof packBatch>): Promise<Array<OffloadRef | null>> {
    const offloaded = planned.filter((item) => item.offload);
    if (offloaded.length === 0) return planned.map(() => null);
    const s3 = this.#handle.s3;
    if (s3 === undefined) {
      const bytes = offloaded.reduce((sum, item) => sum + item.bytes, 0);
      const total = planned.reduce((sum, item) => sum + item.bytes, 0);
      const single = offloaded.length === 1 && offloaded[0]!.count === 1;
      throw new OffloadRequiredError(
        this.#id,
        bytes,
        single
          ? `a message of ${offloaded[0]!.bytes} bytes is over the DynamoDB item limit; nothing was written`
          : `a batch of ${total} bytes is over what one DynamoDB transaction holds (${TRANSACTION_TEXT_LIMIT} bytes inline); nothing was written`,
      );
    }
    return Promise.all(planned.map((item) => (item.offload ? putOffload(s3, this.#id, item.text) : null)));
  }

  /**
   * Deletes the texts an append wrote to S3 before its transaction found the session gone
   * (deleted, or being deleted): a delete that listed the session's objects before they
   * were written cannot have seen them. Keys hold the SHA-256 of lines carrying fresh entry
   * ids, so no committed item points at them. Best effort: the append's own error is what
   * the caller must see; an object this misses stays under the session's offload prefix.
   */
  async #discardOffloads(refs: ReadonlyArray<OffloadRef | null>): Promise<void> {
    const written = refs.filter((ref): ref is OffloadRef => ref !== null);
    if (this.#handle.s3 === undefined || written.length === 0) return;
    await deleteObjects(this.#handle.s3.client, written).catch(() => undefined);
  }

  async loadConversation(): Promise<LoadedSession> {
    const { meta, entries } = await readSession({
      client: this.#handle.client,
      tableName: this.#handle.tableName,
      sessionId: this.#id,
      s3: this.#handle.s3,
    });
    if (!isVisibleTo(meta, this.#handle.owner, this.#handle.clock().getTime())) throw new SessionNotFoundError(this.#id);
    const rebuilt = rebuildConversation(entries);
    this.#ids = new Set(entries.map((entry) => entry.id));
    this.#parent = rebuilt.head;
    this.#metadata = {
      ...meta.metadata,
      entryCount: entries.length,
      head: entries[entries.length - 1]?.id ?? null,
      // Until an entry names a model, the one the session was created with (if any) stands.
      activeModel: rebuilt.activeModel ?? meta.metadata.activeModel,
    };
    return { conversation: rebuilt.conversation, danglingUser: rebuilt.danglingUser };
  }
}

function handleOf(options: DynamoStoreOpenOptions | DynamoStoreCreateOptions): Handle {
  if (options.maxRetries !== undefined && !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)) {
    throw new RangeError('maxRetries must be a non-negative integer');
  }
  return {
    client: options.client,
    tableName: options.tableName,
    owner: options.owner,
    s3: options.s3,
    clock: options.clock ?? (() => new Date()),
    retry: { ...DEFAULT_RETRY_POLICY, ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }) },
  };
}

/** The title the first user prompt of `entries` gives, if it holds one. */
function firstTitle(entries: readonly SessionEntry[]): string | null {
  for (const entry of entries) {
    if (entry.type === 'message' && entry.message.role === 'user') {
      const title = titleOf(entry.message.content);
      if (title !== null) return title;
    }
  }
  return null;
}

/** A META item as first written (by create, or by an import once its entries are in). */
export function metaItem(meta: {
  id: string;
  owner: string;
  createdAt: string;
  updatedAt: string;
  header: string;
  ttlSeconds: number | null;
  expiresAt: number | null;
  entryCount?: number;
  head?: string | null;
  nextParent?: string | null;
  activeModel?: ActiveModel | null;
  title?: string | null;
}): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {
    ...metaKey(meta.id),
    [ATTR.owner]: { S: meta.owner },
    [ATTR.createdAt]: { S: meta.createdAt },
    [ATTR.updatedAt]: { S: meta.updatedAt },
    [ATTR.entryCount]: { N: String(meta.entryCount ?? 0) },
    [ATTR.header]: { S: meta.header },
    [ATTR.gsi1pk]: { S: ownerPk(meta.owner) },
    [ATTR.gsi1sk]: { S: ownerSk(meta.updatedAt, meta.id) },
  };
  if (meta.head != null) item[ATTR.head] = { S: meta.head };
  if (meta.nextParent != null) item[ATTR.nextParent] = { S: meta.nextParent };
  if (meta.activeModel != null) {
    item[ATTR.activeProvider] = { S: meta.activeModel.provider };
    item[ATTR.activeModel] = { S: meta.activeModel.model };
  }
  if (meta.title != null) item[ATTR.title] = { S: meta.title };
  if (meta.ttlSeconds !== null) item[ATTR.ttlSeconds] = { N: String(meta.ttlSeconds) };
  if (meta.expiresAt !== null) item[ATTR.expiresAt] = { N: String(meta.expiresAt) };
  return item;
}
