import { randomUUID } from 'node:crypto';
import { GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ID_RULE,
  InvalidSessionIdError,
  newId,
  SESSION_FORMAT_VERSION,
  SessionNotFoundError,
  type ActiveModel,
  type DiskMessage,
  type LoadedSession,
  type SessionEntry,
  type SessionStore,
} from '@panto/core';
import { encodeBatchLines, encodeHeader, newestModel, resumeParent, SessionLog } from '@panto/core/store-kit';
import { DEFAULT_RETRY_POLICY, sendAppend, type RetryPolicy } from './append.js';
import { packBatch, TRANSACTION_TEXT_LIMIT, type OffloadRef } from './entry-items.js';
import { OffloadRequiredError, SessionExistsError } from './errors.js';
import { CREATE_CONDITION, namesFor } from './expressions.js';
import { decodeMeta, isVisibleTo, titleOf, type MetaRecord, type SessionMetadata } from './metadata.js';
import { putOffload, type S3Location } from './offload.js';
import { takeSessionLease, type SessionLease } from './lease.js';
import { readSession, type SessionRead } from './read.js';
import { ensureRestored } from './restore-session.js';
import type { SessionCache } from './session-cache.js';
import { deleteObjects } from './s3-objects.js';
import {
  activityPk,
  activitySk,
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
  /** As for `open`: the session is cached as it grows. */
  cache?: SessionCache;
}

export interface DynamoStoreOpenOptions {
  client: DynamoDBClient;
  tableName: string;
  sessionId: string;
  owner: string;
  s3?: S3Location;
  clock?: () => Date;
  maxRetries?: number;
  /** Sessions this process has read; a load then reads only what is new (see {@link SessionCache}). */
  cache?: SessionCache;
}

export interface DynamoStoreLeaseOptions extends DynamoStoreOpenOptions {
  /** How long the lease holds unless released, in milliseconds. */
  leaseMs: number;
}

/** A session taken for a turn: its store, and the lease that keeps other turns off it. */
export interface LeasedSession {
  store: DynamoStore;
  lease: SessionLease;
}

interface Handle {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  s3: S3Location | undefined;
  clock: () => Date;
  retry: RetryPolicy;
  cache: SessionCache | undefined;
}

/**
 * A session in DynamoDB: one META item and the entries packed into items under the
 * session's partition (see docs/aws.md). Every append is one conditional transaction —
 * all of the batch or nothing, and only if no other writer appended since this handle
 * last saw the session (`SessionConflictError` otherwise).
 *
 * A handle opened (or leased) knows the session by its META item alone; a load reads the
 * entries — or, with a {@link SessionCache} that agrees with META, none or only the new ones.
 *
 * @example
 * const store = await DynamoStore.create({ client, tableName: 'panto', owner: 'user-1', s3: { client: s3, bucket } });
 * const agent = new Agent({ provider }, { store });
 * // another request, later:
 * const { store: again, lease } = await DynamoStore.lease({ client, tableName: 'panto', owner: 'user-1', sessionId, leaseMs: 35_000, cache });
 * const { agent: resumed, danglingUser } = await Agent.resume(again, { provider });
 */
export class DynamoStore implements SessionStore {
  readonly #handle: Handle;
  readonly #id: string;
  #meta: MetaRecord;
  /** The session as this handle last saw it. */
  #log: SessionLog;
  /** JSONL bytes of the entries the log holds (when it holds them): the cache's measure. */
  #bytes = 0;
  /** Whether #meta was read consistently just now (open, lease) and nothing happened since. */
  #metaFresh: boolean;

  private constructor(handle: Handle, meta: MetaRecord, log: SessionLog, metaFresh: boolean) {
    this.#handle = handle;
    this.#id = meta.metadata.id;
    this.#meta = meta;
    this.#log = log;
    this.#metaFresh = metaFresh;
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
    const incarnation = randomUUID();
    const item = metaItem({ id, owner: options.owner, createdAt, updatedAt: createdAt, header, ttlSeconds, expiresAt, activeModel, incarnation });
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
    const meta: MetaRecord = {
      metadata: { id, owner: options.owner, createdAt, updatedAt: createdAt, entryCount: 0, head: null, activeModel, title: null, archived: false },
      header,
      nextParent: null,
      ttlSeconds,
      expiresAt,
      deletedAt: null,
      incarnation,
      archive: null,
      archivedAt: null,
      archiveClaim: null,
      activityIndexed: true,
      restoredAt: null,
    };
    return new DynamoStore(handleOf(options), meta, SessionLog.empty(), true);
  }

  /**
   * A handle on an existing session of `owner`: one consistent GetItem of its META. A
   * missing session, another owner's, an expired one, one being deleted and a malformed
   * id are all the same `SessionNotFoundError`. An archived session is restored first (its
   * entries streamed back from S3; see `restoreSession`) — or, if another request is
   * restoring it, waited for (`SessionRestoringError` after 20 s) — so the handle is on the
   * session as if it had never left.
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
    const read = item === undefined ? null : decodeMeta(item, metaSource(options.tableName, options.sessionId));
    if (!isVisibleTo(read, options.owner, handle.clock().getTime())) throw new SessionNotFoundError(options.sessionId);
    const meta = await restoreIfArchived(handle, options.sessionId, read);
    return new DynamoStore(handle, meta, logOfHead(meta), true);
  }

  /**
   * Takes the session's turn lease and a handle on it with one conditional UpdateItem,
   * which proves the owner and returns the META item — where `open` and
   * `acquireSessionLease` would take two requests. `SessionBusyError` while another lease
   * holds; `SessionNotFoundError` as for `open`. An archived session is restored as for
   * `open`, under the lease (the sweeper never archives a leased session); whether it is
   * archived comes from the META the lease returned, at no extra request.
   */
  static async lease(options: DynamoStoreLeaseOptions): Promise<LeasedSession> {
    const handle = handleOf(options);
    const { lease, meta } = await takeSessionLease({
      client: options.client,
      tableName: options.tableName,
      owner: options.owner,
      sessionId: options.sessionId,
      leaseMs: options.leaseMs,
      now: () => handle.clock().getTime(),
    });
    if (!isVisibleTo(meta, options.owner, handle.clock().getTime())) {
      await lease.release();
      throw new SessionNotFoundError(options.sessionId);
    }
    // Holding the lease, so no sweeper archives it again meanwhile.
    const hot = await restoreIfArchived(handle, options.sessionId, meta).catch(async (error: unknown) => {
      await lease.release().catch(() => undefined);
      throw error;
    });
    return { store: new DynamoStore(handle, hot, logOfHead(hot), true), lease };
  }

  sessionId(): string {
    return this.#id;
  }

  activeModel(): ActiveModel | null {
    // Until an entry names a model, the one the session was created with (if any) stands.
    return this.#log.activeModel ?? this.#meta.metadata.activeModel;
  }

  /** The session as this handle last saw it (after create, open, an append or a load). */
  metadata(): SessionMetadata {
    const activeModel = this.activeModel();
    return {
      ...this.#meta.metadata,
      entryCount: this.#log.count,
      head: this.#log.leafId,
      activeModel: activeModel === null ? null : { ...activeModel },
    };
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    if (batch.length === 0) return;
    const entries = this.#log.chain(batch);
    const expected = { head: this.#log.leafId, count: this.#log.count };
    const lines = encodeBatchLines(entries);
    const planned = packBatch(lines, expected.count);
    const refs = await this.#offload(planned);
    const now = this.#handle.clock();
    const updatedAt = now.toISOString();
    const title = this.#meta.metadata.title === null ? firstTitle(entries) : null;
    const ttlSeconds = this.#meta.ttlSeconds;
    await sendAppend(
      this.#handle.client,
      {
        tableName: this.#handle.tableName,
        sessionId: this.#id,
        owner: this.#handle.owner,
        expected,
        entries,
        resumeParent: resumeParent(entries[entries.length - 1]!),
        items: planned.map((item, i) => ({ planned: item, ref: refs[i] ?? null })),
        updatedAt,
        activeModel: newestModel(entries),
        title,
        expiresAt: ttlSeconds === null ? null : Math.floor(now.getTime() / 1000) + ttlSeconds,
      },
      randomUUID(),
      this.#handle.retry,
    ).catch(async (error: unknown) => {
      if (error instanceof SessionNotFoundError) await this.#discardOffloads(refs);
      throw error;
    });
    this.#log.commit(entries);
    this.#metaFresh = false;
    this.#meta = {
      ...this.#meta,
      metadata: { ...this.#meta.metadata, updatedAt, title: this.#meta.metadata.title ?? title },
    };
    this.#cacheAppended(expected.count, entries, lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0));
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

  /**
   * Reads the session and rebuilds its conversation. With a cache that agrees with META:
   * no read at all right after `open`/`lease` (META was just read consistently), else a
   * read of the entries after the cached ones only. Otherwise the whole session. A session
   * archived since this handle last looked is restored first.
   */
  async loadConversation(): Promise<LoadedSession> {
    const cache = this.#handle.cache;
    const cached = cache?.get(this.#id);
    const usable = cached !== undefined && cached.incarnation === this.#meta.incarnation;
    let entries: SessionEntry[];
    if (usable && this.#metaFresh && cached.entries.length === this.#meta.metadata.entryCount && cached.entries.at(-1)?.id === (this.#meta.metadata.head ?? undefined)) {
      entries = [...cached.entries];
      this.#bytes = cached.bytes;
    } else {
      const from = usable && cached.entries.length <= this.#meta.metadata.entryCount ? cached.entries.length : 0;
      let read = await this.#read(from);
      if (from > 0 && read.meta?.incarnation !== cached?.incarnation) read = await this.#read(0);
      const meta = read.meta;
      if (!isVisibleTo(meta, this.#handle.owner, this.#handle.clock().getTime())) throw new SessionNotFoundError(this.#id);
      this.#meta = meta;
      entries = from > 0 ? [...cached!.entries, ...read.entries] : read.entries;
      this.#bytes = (from > 0 ? cached!.bytes : 0) + read.bytes;
    }
    this.#metaFresh = false;
    this.#log = SessionLog.of(entries, metaSource(this.#handle.tableName, this.#id));
    if (cache !== undefined && this.#meta.incarnation !== null) {
      cache.set(this.#id, { incarnation: this.#meta.incarnation, entries: [...entries], bytes: this.#bytes });
    }
    return this.#log.load();
  }

  async #read(fromIndex: number): Promise<SessionRead & { meta: MetaRecord | null }> {
    const read = await readSession({ client: this.#handle.client, tableName: this.#handle.tableName, sessionId: this.#id, s3: this.#handle.s3, fromIndex });
    if (read.meta?.archivedAt == null || !isVisibleTo(read.meta, this.#handle.owner, this.#handle.clock().getTime())) return read;
    // Archived since this handle last looked: restore it (the same entries, item boundaries
    // where the appends left them), then read what is asked for.
    await restoreIfArchived(this.#handle, this.#id, read.meta);
    return readSession({ client: this.#handle.client, tableName: this.#handle.tableName, sessionId: this.#id, s3: this.#handle.s3, fromIndex });
  }

  /** Keeps the cache in step with an append this handle made (when it held the entries before it). */
  #cacheAppended(before: number, entries: readonly SessionEntry[], bytes: number): void {
    const cache = this.#handle.cache;
    const incarnation = this.#meta.incarnation;
    if (cache === undefined || incarnation === null) return;
    const held = this.#log.entries;
    if (held !== null) {
      this.#bytes += bytes;
      cache.set(this.#id, { incarnation, entries: [...held], bytes: this.#bytes });
      return;
    }
    const cached = cache.get(this.#id);
    if (cached?.incarnation === incarnation && cached.entries.length === before) {
      cache.set(this.#id, { incarnation, entries: [...cached.entries, ...entries], bytes: cached.bytes + bytes });
    } else {
      cache.delete(this.#id);
    }
  }
}

/** What a META item says of the log: its head, without the entries. */
function logOfHead(meta: MetaRecord): SessionLog {
  return SessionLog.fromHead({
    count: meta.metadata.entryCount,
    leafId: meta.metadata.head,
    resumeParent: meta.nextParent,
    activeModel: meta.metadata.activeModel,
  });
}

/** META once the session is hot: as read, or — archived — after restoring it (or waiting for whoever is). */
async function restoreIfArchived(handle: Handle, sessionId: string, meta: MetaRecord): Promise<MetaRecord> {
  if (meta.archivedAt === null) return meta;
  return ensureRestored({ client: handle.client, tableName: handle.tableName, owner: handle.owner, sessionId, s3: handle.s3, clock: handle.clock }, meta);
}

function metaSource(tableName: string, sessionId: string): string {
  return `dynamodb:${tableName}/${sessionPk(sessionId)}/${META_SK}`;
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
    cache: options.cache,
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
  incarnation: string;
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
    [ATTR.gsi2pk]: { S: activityPk(meta.id) },
    [ATTR.gsi2sk]: { S: activitySk(meta.updatedAt, meta.id) },
    [ATTR.incarnation]: { S: meta.incarnation },
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
