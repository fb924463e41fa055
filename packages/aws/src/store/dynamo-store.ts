import { randomUUID } from 'node:crypto';
import { GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ID_RULE,
  InvalidSessionIdError,
  newId,
  SESSION_FORMAT_VERSION,
  SessionConflictError,
  SessionNotFoundError,
  type ActiveModel,
  type DiskMessage,
  type LoadedSession,
  type LoadOptions,
  type SessionEntry,
  type SessionStore,
} from '@panto/core';
import { decodeHeader, encodeBatch, encodeBatchLines, encodeHeader, newestModel, parseLine, SessionLog, SessionTree } from '@panto/core/store-kit';
import { DEFAULT_RETRY_POLICY, sendAppend, type RetryPolicy } from './append.js';
import { packBatch, TRANSACTION_TEXT_LIMIT, type OffloadRef } from '../entries/entry-item.js';
import { OffloadRequiredError, SessionExistsError } from '../errors.js';
import { CREATE_CONDITION, namesFor } from '../table/expressions.js';
import { decodeMeta, isLive, isVisibleTo, metaItem, titleOf, type HeldLease, type MetaRecord, type SessionMetadata } from '../meta/meta-item.js';
import { putOffload, type S3Location } from '../entries/offload.js';
import { takeSessionLease, type SessionLease } from '../lease/session-lease.js';
import { readSession, type SessionRead } from './read-session.js';
import { ensureRestored } from '../archive/restore-session.js';
import type { SessionCache } from './session-cache.js';
import { deleteObjects } from '../transfer/s3-objects.js';
import { assertValidOwner, errorName, isValidSessionId, META_SK, metaKey, sessionPk } from '../table/keys.js';
import { writeSession } from '../transfer/write-session.js';

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
  /** Makes the ids of leaf entries (a switch of the active branch) and of forked sessions (default: UUIDv7). */
  ids?: () => string;
  maxRetries?: number;
  /** Sessions this process has read; a load then reads only what is new (see {@link SessionCache}). */
  cache?: SessionCache;
}

export interface DynamoStoreLeaseOptions extends DynamoStoreOpenOptions {
  /** How long the lease holds unless renewed or released, in milliseconds. */
  leaseMs: number;
}

/**
 * A session taken for a turn: its store, and the lease that keeps other turns off it. The
 * store's appends are fenced by the lease: once another holder has taken it, they are
 * refused with `SessionLeaseLostError`.
 */
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
  ids: () => string;
  retry: RetryPolicy;
  cache: SessionCache | undefined;
  /** The lease this handle writes under (a leased store), or null. */
  leaseId: string | null;
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
    const item = metaItem({
      id,
      owner: options.owner,
      createdAt,
      updatedAt: createdAt,
      header,
      ttlSeconds,
      expiresAt,
      activeModel,
      incarnation,
    });
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
      metadata: {
        id,
        owner: options.owner,
        createdAt,
        updatedAt: createdAt,
        entryCount: 0,
        head: null,
        activeModel,
        title: null,
        archived: false,
      },
      header,
      nextParent: null,
      ttlSeconds,
      expiresAt,
      deletedAt: null,
      incarnation,
      lease: null,
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
   * holds; `SessionNotFoundError` as for `open`. The store appends only while the lease is
   * still its own (a fencing condition in the same transaction: no extra request). An
   * archived session is restored as for `open`, under the lease (the sweeper never archives
   * a leased session); whether it is archived comes from the META the lease returned.
   */
  static async lease(options: DynamoStoreLeaseOptions): Promise<LeasedSession> {
    const base = handleOf(options);
    const { lease, meta } = await takeSessionLease({
      client: options.client,
      tableName: options.tableName,
      owner: options.owner,
      sessionId: options.sessionId,
      leaseMs: options.leaseMs,
      now: () => base.clock().getTime(),
    });
    const handle: Handle = { ...base, leaseId: lease.leaseId };
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

  /**
   * The model the session's next turn uses, as META says it and this handle last saw it:
   * what its last write set — an append, the newest model its batch names; a switch, the
   * newest on the path switched to; `updateSession`, the one chosen — and, until one did,
   * the model it was created with. The entries' own rule where META names none.
   */
  activeModel(): ActiveModel | null {
    return this.#meta.metadata.activeModel ?? this.#log.activeModel;
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

  /**
   * The turn lease on the session as META showed it when this handle last read it (open,
   * lease, a load) — its holder may have renewed it since — or null when none held then
   * (by this handle's clock).
   */
  heldLease(): HeldLease | null {
    const { lease } = this.#meta;
    return lease !== null && isLive(lease, this.#handle.clock().getTime()) ? { ...lease } : null;
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    if (batch.length === 0) return;
    await this.#append(this.#log.chain(batch));
  }

  /**
   * Makes `entryId` the active leaf: a leaf entry, appended by the same conditional
   * transaction as a batch (head and count as this handle last saw them), which also sets
   * META's `next_parent` and active model by the new path. A handle that knows the session
   * by its META item alone reads the entries first (from the cache when it agrees); if they
   * moved past what it saw, `SessionConflictError`.
   */
  async switchLeaf(entryId: string): Promise<LoadedSession> {
    await this.#holdEntries();
    const leaf = this.#log.leaf(entryId, { id: this.#handle.ids(), timestamp: this.#handle.clock().toISOString() });
    if (leaf !== null) await this.#append([leaf]);
    return this.#log.load(this.#source, { at: entryId });
  }

  /**
   * Copies the path to `entryId` into a new session of the same owner (same TTL): its
   * entry lines, ids kept, as one batch under a new header, written as an import is —
   * entry items first, META last. This session is not changed.
   */
  async fork(entryId: string): Promise<DynamoStore> {
    const { entries, meta } = await this.#readEntries();
    const path = SessionTree.of(entries, this.#source).pathTo(entryId);
    const original = decodeHeader(parseLine(meta.header, this.#source, 1), this.#source);
    const id = this.#handle.ids();
    const now = this.#handle.clock();
    const header = encodeHeader({
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id,
      timestamp: now.toISOString(),
      ...(original.cwd === undefined ? {} : { cwd: original.cwd }),
    });
    const { client, tableName, owner, s3 } = this.#handle;
    await writeSession({
      dynamo: client,
      tableName,
      owner,
      s3,
      source: `fork of ${this.#source}`,
      stream: [header, encodeBatch(path)],
      sessionId: () => id,
      rules: 'stored',
      ttlSeconds: meta.ttlSeconds,
      now,
      // A path before any entry names a model (its system prompt, say) keeps the model this
      // session was created with or changed to, not the server's default.
      defaultModel: meta.metadata.activeModel,
    });
    return DynamoStore.open({ ...this.#openOptions(), sessionId: id });
  }

  /** Reads the whole tree, from the cache as far as it agrees with META; changes nothing of this handle. */
  async loadTree(): Promise<SessionTree> {
    return SessionTree.of((await this.#readEntries()).entries, this.#source);
  }

  /** The one write path: a chained batch or a leaf entry, as one conditional transaction. */
  async #append(entries: readonly SessionEntry[]): Promise<void> {
    const head = this.#log.headAfter(entries);
    // META's model: the one a batch names (if any), or the switched-to path's.
    const activeModel = entries[0]?.type === 'leaf' ? head.activeModel : newestModel(entries);
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
        resumeParent: head.resumeParent,
        items: planned.map((item, i) => ({ planned: item, ref: refs[i] ?? null })),
        updatedAt,
        activeModel,
        title,
        expiresAt: ttlSeconds === null ? null : Math.floor(now.getTime() / 1000) + ttlSeconds,
        leaseId: this.#handle.leaseId,
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
      nextParent: head.resumeParent,
      metadata: {
        ...this.#meta.metadata,
        updatedAt,
        title: this.#meta.metadata.title ?? title,
        activeModel: activeModel ?? this.#meta.metadata.activeModel,
      },
    };
    this.#cacheAppended(
      expected.count,
      entries,
      lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0),
    );
  }

  /**
   * Makes sure the log holds the entries (a handle from `open` or `lease` knows only the
   * head): reads them, and refuses with `SessionConflictError` if the session moved past
   * the head this handle saw — a write it then made would not be based on what it saw.
   */
  async #holdEntries(): Promise<void> {
    if (this.#log.entries !== null) return;
    const expected = { entryCount: this.#log.count, entryId: this.#log.leafId };
    const read = await this.#readEntries();
    const current = { entryCount: read.entries.length, entryId: read.entries.at(-1)?.id ?? null };
    if (current.entryCount !== expected.entryCount || current.entryId !== expected.entryId) {
      throw new SessionConflictError(this.#id, { expected, current });
    }
    this.#adopt(read);
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
  async loadConversation(options: LoadOptions = {}): Promise<LoadedSession> {
    this.#adopt(await this.#readEntries());
    return this.#log.load(this.#source, options);
  }

  /**
   * Reads the session as {@link loadConversation} does (only what is new, with a cache) and
   * returns every entry in log order: to follow a session another process writes, load
   * again and look past the entries seen before. Also refreshes `metadata()` and `heldLease()`.
   */
  async loadEntries(): Promise<readonly SessionEntry[]> {
    this.#adopt(await this.#readEntries());
    return this.#log.entries ?? [];
  }

  /** What a load read becomes this handle's view of the session. */
  #adopt(read: EntriesRead): void {
    this.#meta = read.meta;
    this.#bytes = read.bytes;
    this.#metaFresh = false;
    this.#log = SessionLog.of(read.entries, this.#source);
  }

  /**
   * Every entry of the session, with the META item they agree with, read as far as the
   * cache does not hold them (see loadConversation). Keeps the cache up to date; changes
   * nothing else of this handle.
   */
  async #readEntries(): Promise<EntriesRead> {
    const cache = this.#handle.cache;
    const cached = cache?.get(this.#id);
    const usable = cached !== undefined && cached.incarnation === this.#meta.incarnation;
    let result: EntriesRead;
    if (
      usable &&
      this.#metaFresh &&
      cached.entries.length === this.#meta.metadata.entryCount &&
      cached.entries.at(-1)?.id === (this.#meta.metadata.head ?? undefined)
    ) {
      result = { entries: [...cached.entries], meta: this.#meta, bytes: cached.bytes };
    } else {
      // Entries never change once written: a cached prefix holds even when it is ahead of the
      // META this handle last saw (another handle of this process appended since — a follower).
      let from = usable ? cached.entries.length : 0;
      let read = await this.#read(from);
      // Deleted and made again under this id since META was read: the cached prefix is another session's.
      if (from > 0 && read.meta?.incarnation !== cached?.incarnation) {
        from = 0;
        read = await this.#read(from);
      }
      const meta = read.meta;
      if (!isVisibleTo(meta, this.#handle.owner, this.#handle.clock().getTime())) throw new SessionNotFoundError(this.#id);
      const reused = from === 0 ? null : cached!;
      result = {
        // A copy: the read may be shared with other handles, and a handle's log grows in place.
        entries: reused === null ? [...read.entries] : [...reused.entries, ...read.entries],
        meta,
        bytes: (reused === null ? 0 : reused.bytes) + read.bytes,
      };
    }
    if (cache !== undefined && result.meta.incarnation !== null) {
      cache.set(this.#id, { incarnation: result.meta.incarnation, entries: [...result.entries], bytes: result.bytes });
    }
    return result;
  }

  get #source(): string {
    return metaSource(this.#handle.tableName, this.#id);
  }

  /** Options that open another handle like this one (the same client, owner, S3, cache, clock). */
  #openOptions(): DynamoStoreOpenOptions {
    const { client, tableName, owner, s3, clock, ids, retry, cache } = this.#handle;
    return {
      client,
      tableName,
      owner,
      sessionId: this.#id,
      clock,
      ids,
      maxRetries: retry.maxRetries,
      ...(s3 === undefined ? {} : { s3 }),
      ...(cache === undefined ? {} : { cache }),
    };
  }

  async #read(fromIndex: number): Promise<SessionRead & { meta: MetaRecord | null }> {
    const query = (): Promise<SessionRead> =>
      readSession({
        client: this.#handle.client,
        tableName: this.#handle.tableName,
        sessionId: this.#id,
        s3: this.#handle.s3,
        fromIndex,
      });
    // Handles of one process reading the same session at once (followers of a turn) share one
    // read, and hold one copy of its entries rather than one each. Only a read that began after
    // META said what this handle's META says is shared: it holds at least what this handle saw.
    const { incarnation, metadata } = this.#meta;
    const key = `${this.#id}:${incarnation ?? ''}:${metadata.entryCount}:${metadata.head ?? ''}:${fromIndex}`;
    const read = await (this.#handle.cache?.shareRead(key, query) ?? query());
    if (read.meta?.archivedAt == null || !isVisibleTo(read.meta, this.#handle.owner, this.#handle.clock().getTime())) return read;
    // Archived since this handle last looked: restore it (the same entries, item boundaries
    // where the appends left them), then read what is asked for.
    await restoreIfArchived(this.#handle, this.#id, read.meta);
    return readSession({
      client: this.#handle.client,
      tableName: this.#handle.tableName,
      sessionId: this.#id,
      s3: this.#handle.s3,
      fromIndex,
    });
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

/** A read of every entry of a session, and the META item it agrees with. */
interface EntriesRead {
  entries: SessionEntry[];
  meta: MetaRecord;
  /** JSONL bytes of the entries. */
  bytes: number;
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
  return ensureRestored(
    {
      client: handle.client,
      tableName: handle.tableName,
      owner: handle.owner,
      sessionId,
      s3: handle.s3,
      clock: handle.clock,
    },
    meta,
  );
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
    ids: options.ids ?? newId,
    retry: { ...DEFAULT_RETRY_POLICY, ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }) },
    cache: options.cache,
    leaseId: null,
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
