/**
 * `DynamoStore`: a session in DynamoDB, behind core's `SessionStore`. The class holds a
 * handle and its view of the session; the work is in its two halves, a folder each:
 * - read/: opening a handle (open-session.ts; for a turn, turn-session.ts), then its load
 *   (read-entries.ts: the cache first, then read-session.ts's Query, decoded by item-sequence.ts);
 * - write/: a new session (create-session.ts), a session taken for a turn (lease-session.ts),
 *   and a handle's write, in the order it runs: write-batch.ts (offload big texts, then) →
 *   append-transaction.ts (the one conditional TransactWriteItems) → transaction-extras.ts
 *   (other items' writes that ride in it: the usage ledger's).
 */
import {
  SessionConflictError,
  type ActiveModel,
  type AppendOptions,
  type DiskMessage,
  type LoadedSession,
  type LoadOptions,
  type SessionEntry,
  type SessionStore,
  decodeHeader,
  encodeBatch,
  parseLine,
  SessionLog,
  SessionTree,
} from '@panto/core/store-kit';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import type { SessionLease } from '../lease/session-lease.js';
import { metaSource, type HeldLease, type SessionMetadata } from '../meta/meta-item.js';
import { firstTitle, forkTitle } from '../meta/title.js';
import { isLive } from '../meta/visibility.js';
import { type PartialAnswer, type PartialMessage, partialKey, partialOfRunning, putPartial } from '../partial/partial-answer.js';
import type { AppendHook } from './write/transaction-extras.js';
import { appendEntries } from './write/write-batch.js';
import { createSession, sessionHeader } from './write/create-session.js';
import { openOptionsOf, viewOfHead, type Handle, type SessionView } from './handle.js';
import { leaseSession } from './write/lease-session.js';
import { openSession } from './read/open-session.js';
import { readEntries, type EntriesRead } from './read/read-entries.js';
import type { DynamoStoreCreateOptions, DynamoStoreLeaseOptions, DynamoStoreOpenOptions, DynamoStoreTurnOptions } from './store-options.js';
import { openForTurn } from './read/turn-session.js';

/**
 * A session taken for a turn: its store, and the lease that keeps other turns off it. The
 * store's appends are fenced by the lease: once another holder has taken it, they are
 * refused with `SessionLeaseLostError`.
 */
export interface LeasedSession {
  store: DynamoStore;
  lease: SessionLease;
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
  /** The session as this handle last saw it. */
  #view: SessionView;
  /** What each append carries besides its batch (the usage ledger's writes); see {@link setAppendHook}. */
  #hook: AppendHook | null = null;

  private constructor(handle: Handle, view: SessionView) {
    this.#handle = handle;
    this.#id = view.meta.metadata.id;
    this.#view = view;
  }

  /** Starts a new, empty session (its META item). `SessionExistsError` if `sessionId` is taken. */
  static async create(options: DynamoStoreCreateOptions): Promise<DynamoStore> {
    const { handle, meta } = await createSession(options);
    return new DynamoStore(handle, { meta, log: SessionLog.empty(), bytes: 0, metaFresh: true });
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
    const { handle, meta } = await openSession(options);
    return new DynamoStore(handle, viewOfHead(meta));
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
    const { handle, meta, lease } = await leaseSession(options);
    return { store: new DynamoStore(handle, viewOfHead(meta)), lease };
  }

  /**
   * A handle for a turn that costs no request when this process's cache knows the session
   * (else one Query: META and the entries), and takes no lease yet: its first append takes
   * the turn lease in the same transaction (`SessionBusyError` when another unexpired lease
   * holds, nothing written; `SessionConflictError` when the session moved past what this
   * handle saw — a cache that was behind: open it again without the cached copy), and the
   * append marked `last` gives it up in its own. Until then, and after, appends are fenced
   * by the lease like a leased store's. {@link turnLease} is the lease once taken, to renew
   * while the turn runs and to release when it ends without a last append.
   */
  static async forTurn(options: DynamoStoreTurnOptions): Promise<DynamoStore> {
    const { handle, view } = await openForTurn(options);
    return new DynamoStore(handle, view);
  }

  /** The lease a store for a turn took with its first append; null before, and for other stores. Still returned once given up. */
  turnLease(): SessionLease | null {
    return this.#handle.turn?.lease ?? null;
  }

  /**
   * Stores the answer the turn's model has produced so far, for any process to read (one
   * PutItem of the session's partial answer item; the append that stores the message deletes
   * it in its own transaction). Only a store for a turn that holds its lease writes one, and
   * not while an append runs; resolves false when it wrote nothing (or the partial is too big).
   */
  async writePartial(message: PartialMessage): Promise<boolean> {
    const { turn, client, tableName } = this.#handle;
    const lease = turn?.lease;
    if (turn === null || lease == null || turn.released || turn.appending) return false;
    const partial = { leaseId: lease.leaseId, message, updatedAt: this.#handle.clock().toISOString() };
    const written = turn.partialWrites.then(() => putPartial(client, tableName, this.#id, partial));
    // The chain of partial writes goes on; this write's failure reaches its caller through `written`.
    turn.partialWrites = written.catch(() => undefined);
    const stored = await written;
    if (stored) turn.partialStored = true;
    return stored;
  }

  /** Deletes a partial answer this store wrote that no append deleted (a turn that ended with nothing to commit). */
  async discardPartial(): Promise<void> {
    const { turn, client, tableName } = this.#handle;
    if (turn === null) return;
    await turn.partialWrites;
    if (!turn.partialStored) return;
    await client.send(new DeleteItemCommand({ TableName: tableName, Key: partialKey(this.#id) }));
    turn.partialStored = false;
  }

  /**
   * The partial answer of the turn running on the session, as this handle's last read of the
   * entries found it (a follower's Query reads it with the new entries), or null: none, or one
   * of a turn that is not the running one.
   */
  partialAnswer(): PartialAnswer | null {
    return partialOfRunning(this.#view.partial ?? null, this.#view.meta.lease, this.#handle.clock().getTime());
  }

  /** The id a store for a turn takes (took) its lease under, known before its first append; null for other stores. */
  turnLeaseId(): string | null {
    return this.#handle.turn?.leaseId ?? null;
  }

  /** Whether a store for a turn has given its lease up (an append marked last did). */
  leaseReleased(): boolean {
    return this.#handle.turn?.released ?? false;
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
    return this.#view.meta.metadata.activeModel ?? this.#view.log.activeModel;
  }

  /** The session as this handle last saw it (after create, open, an append or a load). */
  metadata(): SessionMetadata {
    const activeModel = this.activeModel();
    return {
      ...this.#view.meta.metadata,
      entryCount: this.#view.log.count,
      head: this.#view.log.leafId,
      activeModel: activeModel === null ? null : { ...activeModel },
    };
  }

  /**
   * The turn lease on the session as META showed it when this handle last read it (open,
   * lease, a load) — its holder may have renewed it since — or null when none held then
   * (by this handle's clock).
   */
  heldLease(): HeldLease | null {
    const { lease } = this.#view.meta;
    return lease !== null && isLive(lease, this.#handle.clock().getTime()) ? { ...lease } : null;
  }

  /** Appends as one conditional transaction; for a store for a turn, `last` also gives up its lease in it. */
  async appendMessages(batch: readonly DiskMessage[], options: AppendOptions = {}): Promise<void> {
    if (batch.length === 0) return;
    await this.#append(this.#view.log.chain(batch), options.last === true);
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
    const leaf = this.#view.log.leaf(entryId, { id: this.#handle.ids(), timestamp: this.#handle.clock().toISOString() });
    if (leaf !== null) await this.#append([leaf]);
    return this.#view.log.load(this.#source, { at: entryId });
  }

  /**
   * Copies the path to `entryId` into a new session of the same owner (same TTL): its
   * entry lines, ids kept, as one batch under a new header, written as an import is —
   * entry items first, META last — and titled after this one, marked `(fork)` (`forkTitle`).
   * This session is not changed.
   */
  async fork(entryId: string): Promise<DynamoStore> {
    const { entries, meta } = await this.#readEntries();
    const path = SessionTree.of(entries, this.#source).pathTo(entryId);
    const original = decodeHeader(parseLine(meta.header, this.#source, 1), this.#source);
    const id = this.#handle.ids();
    const now = this.#handle.clock();
    const { client, tableName, owner, s3 } = this.#handle;
    // The JSONL writer is loaded by the first fork (and import): no part of opening a session.
    const { writeSession } = await import('../jsonl/write-session.js');
    await writeSession({
      dynamo: client,
      tableName,
      owner,
      s3,
      source: `fork of ${this.#source}`,
      stream: [sessionHeader(id, now.toISOString(), original.cwd), encodeBatch(path)],
      sessionId: () => id,
      rules: 'stored',
      ttlSeconds: meta.ttlSeconds,
      now,
      // A path before any entry names a model (its system prompt, say) keeps the model this
      // session was created with or changed to, not the server's default.
      defaultModel: meta.metadata.activeModel,
      // Told apart from the session it came from in a list: "Parser refactor (fork)".
      title: forkTitle(meta.metadata.title ?? firstTitle(path)),
    });
    return DynamoStore.open(openOptionsOf(this.#handle, id));
  }

  /** Reads the whole tree, from the cache as far as it agrees with META; changes nothing of this handle. */
  async loadTree(): Promise<SessionTree> {
    return SessionTree.of((await this.#readEntries()).entries, this.#source);
  }

  /**
   * Reads the session and rebuilds its conversation. With a cache that agrees with META:
   * no read at all right after `open`/`lease` (META was just read consistently), else a
   * read of the entries after the cached ones only. Otherwise the whole session. A session
   * archived since this handle last looked is restored first.
   */
  async loadConversation(options: LoadOptions = {}): Promise<LoadedSession> {
    this.#adopt(await this.#readEntries());
    return this.#view.log.load(this.#source, options);
  }

  /**
   * Reads the session as {@link loadConversation} does (only what is new, with a cache) and
   * returns every entry in log order: to follow a session another process writes, load
   * again and look past the entries seen before. Also refreshes `metadata()` and `heldLease()`.
   */
  async loadEntries(): Promise<readonly SessionEntry[]> {
    this.#adopt(await this.#readEntries());
    return this.#view.log.entries ?? [];
  }

  /**
   * Makes every later append of this handle ask `hook` for writes of other items to send in
   * its transaction — committed with the batch or not at all — and for what a refusal of
   * them means (see write/transaction-extras.ts); null stops it. The usage ledger rides on a turn's
   * appends this way, with no request of its own.
   */
  setAppendHook(hook: AppendHook | null): void {
    this.#hook = hook;
  }

  /** The one write path: a chained batch or a leaf entry, as one conditional transaction. */
  async #append(entries: readonly SessionEntry[], last = false): Promise<void> {
    const extras = this.#hook?.(entries) ?? null;
    // The hook refused the batch outright: nothing is sent.
    if (extras instanceof Error) throw extras;
    this.#view = await appendEntries(this.#handle, this.#id, this.#view, entries, last, extras);
    extras?.committed?.();
  }

  /**
   * Makes sure the log holds the entries (a handle from `open` or `lease` knows only the
   * head): reads them, and refuses with `SessionConflictError` if the session moved past
   * the head this handle saw — a write it then made would not be based on what it saw.
   */
  async #holdEntries(): Promise<void> {
    const { log } = this.#view;
    if (log.entries !== null) return;
    const expected = { entryCount: log.count, entryId: log.leafId };
    const read = await this.#readEntries();
    const current = { entryCount: read.entries.length, entryId: read.entries.at(-1)?.id ?? null };
    if (current.entryCount !== expected.entryCount || current.entryId !== expected.entryId) {
      throw new SessionConflictError(this.#id, { expected, current });
    }
    this.#adopt(read);
  }

  /** Every entry and the META they agree with (see read/read-entries.ts); changes nothing of this handle. */
  #readEntries(): Promise<EntriesRead> {
    return readEntries(this.#handle, this.#id, this.#view);
  }

  /**
   * What a load read becomes this handle's view of the session. A log that already holds
   * exactly the entries read (a turn's handle from the cache, loaded at once) is kept, with
   * the rebuild it made: entries never change once written, so the same count and newest id
   * are the same entries, and a second rebuild would cost a pass over the whole session.
   */
  #adopt(read: EntriesRead): void {
    const { log } = this.#view;
    const same = log.entries !== null && log.count === read.entries.length && log.leafId === (read.entries.at(-1)?.id ?? null);
    // A log of its own (it grows in place), made from what the cache built of the same entries when it has that.
    const adopted = same ? log : SessionLog.of([...read.entries], this.#source, read.built);
    if (!same && read.built === undefined) this.#handle.cache?.keepBuilt(this.#id, read.meta.incarnation, adopted.built());
    this.#view = { meta: read.meta, bytes: read.bytes, metaFresh: false, log: adopted, partial: read.partial };
  }

  get #source(): string {
    return metaSource(this.#handle.tableName, this.#id);
  }
}
