/**
 * What the HTTP routes do, without HTTP: every call rebuilds what it needs from DynamoDB
 * (take or open the store, load the conversation, build an agent). The one thing kept
 * between requests is the {@link SessionCache}: a warm process reads only what is new.
 *
 * A plain turn costs four requests in a warm process: the lease (one conditional
 * UpdateItem that also proves the owner and returns the session's head), the prompt's
 * append, the answer's append, and the release. A cold process adds one Query for the log.
 * A turn that outlives the lease's renewal period adds one UpdateItem per period: the
 * renewal, which also reads back whether a stop was requested.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  deleteSession,
  DynamoStore,
  exportSession,
  keepSessionLease,
  importSession,
  listExports,
  listOwnerSessions,
  requestTurnStop,
  pingTable,
  type SessionCache,
  SYSTEM_LEASE_CLOCK,
  titleOf,
  updateSession,
  type DynamoStoreOpenOptions,
  type HeartbeatEnd,
  type HeldLease,
  type LeaseClock,
  type ListedExport,
  type SessionExport,
  type SessionLease,
  type SessionMetadata,
  type TablePing,
} from '@panto/aws';
import {
  AbortedError,
  acceptsPrompt,
  Agent,
  EntryNotFoundError,
  ProviderNotConfiguredError,
  SessionCorruptError,
  UnknownProviderError,
  type ActiveModel,
  type CompactionResult,
  type DiskMessageRecord,
  type LoadedSession,
  type Message,
  type Provider,
  type Receiver,
  type RecordEntry,
  type SessionEntry,
  type SessionTree,
  type StepResult,
  type ToolRegistry,
  type Usage,
} from '@panto/core';
import { invalidField, invalidSessionLog, outageOf, unknownEntry } from './errors.js';
import type { ProviderResolver } from './providers.js';

export interface SessionServiceDeps {
  dynamo: DynamoDBClient;
  tableName: string;
  s3: S3Client;
  bucket: string;
  providers: ProviderResolver;
  /** Sessions this process has read (one per process; see SessionCache). */
  cache: SessionCache;
  /** The tools a turn offers; a fresh registry per call. Must not reject. */
  tools: () => ToolRegistry | Promise<ToolRegistry>;
  /** Sessions expire this long after their last write; never when absent. */
  sessionTtlSeconds?: number;
  /** Where failures that do not reach the caller are reported. Must not throw. */
  log: (message: string, error: unknown) => void;
  /** Where a backend outage that does not reach the caller is reported, in one short line. Must not throw. */
  logOutage: (message: string) => void;
  /** The turn lease: its term, and how often a running turn renews it (see ServiceLimits). */
  lease: { leaseMs: number; renewEveryMs: number };
  /** The clock leases are taken, renewed and judged by (default: the system clock). */
  clock?: LeaseClock;
}

/**
 * Pauses before each retry of a lease release that failed. A lease that is not released
 * holds its session for the rest of its term (30 s by default), so when the store fails (an
 * outage that also ended the turn) the release is tried again within the request, in case
 * the store is back: five more times over about three seconds.
 */
const RELEASE_RETRY_DELAYS_MS: readonly number[] = [100, 200, 400, 800, 1600];

/** A session as listed. */
export interface SessionSummary {
  metadata: SessionMetadata;
  /** The model its next turn uses: its own, or the server's default. */
  activeModel: ActiveModel;
}

export interface SessionContents {
  id: string;
  messages: readonly Message[];
  /** The entry each message came from (same order); null for a tool result the rebuild synthesized. */
  entries: readonly (RecordEntry | null)[];
  danglingUser: string | null;
  activeModel: ActiveModel;
  usage: Usage;
  /** Entries of the log that `messages` reflects: where to follow it from. */
  entryCount: number;
  /** The turn (or compaction) running on the session, as its lease shows; null when none runs. */
  turn: RunningTurn | null;
}

/** A turn that holds a session's lease. */
export interface RunningTurn {
  /** Epoch milliseconds; null for a lease taken before this was recorded. */
  startedAt: number | null;
  /** Whether it was asked to stop (it stops at its next chunk or tool boundary). */
  stopRequested: boolean;
}

/** What following a session ({@link SessionService.follow}) sees, in order: `turn` first, `end` last. */
export type FollowEvent =
  | { type: 'turn'; turn: RunningTurn | null }
  /** A message persisted at entry `index` (0-based) of the log, as its entry holds it. */
  | { type: 'message'; index: number; record: DiskMessageRecord }
  /** `entryCount`: entries seen, where to follow on from; `turn`: the turn still running when following stopped (a deadline), else null. */
  | { type: 'end'; entryCount: number; turn: RunningTurn | null };

export interface TurnOutcome {
  /** The user's prompt as stored, and everything the step added, all persisted. */
  prompt: DiskMessageRecord;
  messages: Message[];
  /** The same messages as stored records (entry id, timestamp), the prompt first. */
  records: DiskMessageRecord[];
  step: StepResult;
  /** True when a stop request (`stop`) ended the turn. */
  stopRequested: boolean;
}

/**
 * A session nobody else may change until {@link SessionLock.release}: its lease, renewed
 * while the lock is held.
 */
export interface SessionLock {
  store: DynamoStore;
  /** Aborts when the turn must stop: a stop was requested (reason: `StopRequestedError`), or the lease was lost. */
  signal: AbortSignal;
  /** Why `signal` aborted; null while it has not. */
  readonly ended: HeartbeatEnd | null;
  /** Stops renewing and frees the session. Never rejects. */
  release(): Promise<void>;
}

export interface TurnOptions {
  /** Ends the step early; everything committed so far stays persisted. */
  signal: AbortSignal;
  /** Sees every event of the turn, the prompt's `entries-persisted` first. Must not throw. */
  receiver?: Receiver;
  /**
   * Continue from this entry instead of the active leaf (`null`: the root): it must be a
   * point a prompt can follow (`acceptsPrompt`), else a 400 naming `parent_id`.
   */
  parentId?: string | null;
}

/** A page of a session's log. */
export interface EntriesPage {
  entries: SessionEntry[];
  /** The id of the page's last entry, to pass as `cursor`; null on the last page. */
  nextCursor: string | null;
}

/** What a change of a session (`PATCH`) asks for; nothing given, nothing changes. */
export interface SessionChange {
  title?: string;
  provider?: string;
  model?: string;
}

/** The most JSON one page of entries holds (a page has at least one entry, whatever its size). */
export const ENTRIES_PAGE_BYTES = 1024 * 1024;

export class SessionService {
  readonly #deps: SessionServiceDeps;
  #default: ActiveModel | undefined;

  constructor(deps: SessionServiceDeps) {
    this.#deps = deps;
  }

  /**
   * Creates a session for `provider`; `system` becomes its first entry. When `chosen`, the
   * session keeps `provider`'s model even if the server's default changes.
   */
  async create(owner: string, options: { provider: Provider; chosen: boolean; system?: string }): Promise<SessionSummary> {
    const { dynamo, tableName } = this.#deps;
    const { provider } = options;
    const store = await DynamoStore.create({
      client: dynamo,
      tableName,
      owner,
      ...this.#s3(),
      cache: this.#deps.cache,
      ...(this.#deps.sessionTtlSeconds === undefined ? {} : { ttlSeconds: this.#deps.sessionTtlSeconds }),
      ...(options.chosen ? { activeModel: { provider: provider.name, model: provider.model } } : {}),
    });
    if (options.system !== undefined) {
      await new Agent({ provider }, { store }).addSystemMessage(options.system, 'replace');
    }
    return this.#summary(store.metadata());
  }

  /** Whether the table answers a read within `timeoutMs` (see `pingTable`). Never rejects. */
  async ping(timeoutMs: number): Promise<TablePing> {
    return pingTable({ client: this.#deps.dynamo, tableName: this.#deps.tableName, timeoutMs });
  }

  async list(owner: string, page: { limit?: number; cursor?: string }): Promise<{ sessions: SessionSummary[]; nextCursor: string | null }> {
    const { dynamo, tableName } = this.#deps;
    const { sessions, nextCursor } = await listOwnerSessions({
      client: dynamo,
      tableName,
      owner,
      ...(page.limit === undefined ? {} : { limit: page.limit }),
      ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
    });
    return { sessions: sessions.map((metadata) => this.#summary(metadata)), nextCursor };
  }

  async read(owner: string, sessionId: string): Promise<SessionContents> {
    const store = await this.#open(owner, sessionId);
    return this.#contents(store, await store.loadConversation());
  }

  /** The whole tree of the session, every branch. */
  async tree(owner: string, sessionId: string): Promise<SessionTree> {
    return (await this.#open(owner, sessionId)).loadTree();
  }

  /**
   * A page of the log in order — every branch, leaf entries and what compactions replaced —
   * after the entry `cursor` names: at most `limit` entries and about
   * {@link ENTRIES_PAGE_BYTES} of JSON. A cursor that is not an entry of the session is a 400.
   */
  async entries(owner: string, sessionId: string, page: { cursor?: string; limit: number }): Promise<EntriesPage> {
    const all = (await this.tree(owner, sessionId)).entries;
    let start = 0;
    if (page.cursor !== undefined) {
      const at = all.findIndex((entry) => entry.id === page.cursor);
      if (at === -1) throw invalidField('query', 'cursor', 'not a cursor this API returned');
      start = at + 1;
    }
    const entries: SessionEntry[] = [];
    let bytes = 0;
    for (let i = start; i < all.length && entries.length < page.limit; i++) {
      const size = Buffer.byteLength(JSON.stringify(all[i]));
      if (entries.length > 0 && bytes + size > ENTRIES_PAGE_BYTES) break;
      entries.push(all[i]!);
      bytes += size;
    }
    const last = entries.at(-1);
    return { entries, nextCursor: last !== undefined && start + entries.length < all.length ? last.id : null };
  }

  /**
   * Makes `entryId` the active leaf, holding the lease like a turn (409 while one runs), and
   * returns the session as it now reads.
   */
  async switchLeaf(owner: string, sessionId: string, entryId: string): Promise<SessionContents> {
    return this.#locked(owner, sessionId, async ({ store }) => {
      await this.#checkSwitch(store, entryId);
      const loaded = await store.switchLeaf(entryId).catch(asEntryField('entry_id'));
      // The lease the store shows is this switch's own, released before the answer: no turn runs.
      return { ...this.#contents(store, loaded), turn: null };
    });
  }

  /** A new session of `owner` holding the path to `entryId`; the session itself is not changed. */
  async fork(owner: string, sessionId: string, entryId: string): Promise<SessionSummary> {
    const store = await this.#open(owner, sessionId);
    const fork = await store.fork(entryId).catch(asEntryField('entry_id'));
    return this.#summary(fork.metadata());
  }

  /**
   * A new session of `owner` from a JSONL session log (an export), under a new id: the
   * header's id is returned as `importedFrom`, never kept, so that the outcome cannot tell
   * whether some session (another owner's, a deleted one) has it. A line that is not a
   * session log line is a 400 naming it, and nothing is created. A request body is whole, so
   * its last line is read as a line even without a newline — never dropped as a torn one, as
   * a file's is.
   */
  async import(owner: string, received: Uint8Array): Promise<SessionSummary & { importedFrom: string }> {
    const { dynamo, tableName, cache } = this.#deps;
    const body = received.length > 0 && received[received.length - 1] !== 0x0a ? Buffer.concat([received, Buffer.from('\n')]) : received;
    let importedFrom = '';
    const store = await importSession({
      dynamo,
      tableName,
      owner,
      ...this.#s3(),
      source: { body, name: 'body' },
      onHeader: (header) => {
        importedFrom = header.id;
      },
      cache,
      ...(this.#deps.sessionTtlSeconds === undefined ? {} : { ttlSeconds: this.#deps.sessionTtlSeconds }),
    }).catch((error: unknown) => {
      throw error instanceof SessionCorruptError ? invalidSessionLog(error, { joinedLines: isJoinedLines(body) }) : error;
    });
    return { ...this.#summary(store.metadata()), importedFrom };
  }

  /**
   * Renames the session and/or changes the model its next turns use. A model change is
   * checked as at creation (an unknown provider 400, one without a key 422) and holds the
   * lease (409 while a turn runs), so a running turn is never changed under it.
   */
  async update(owner: string, sessionId: string, change: SessionChange): Promise<SessionSummary> {
    const { dynamo, tableName } = this.#deps;
    const title = change.title === undefined ? undefined : (titleOf(change.title) ?? undefined);
    const titled = title === undefined ? {} : { title };
    if (change.provider === undefined && change.model === undefined) {
      if (title === undefined) return this.#summary((await this.#open(owner, sessionId)).metadata());
      return this.#summary(await updateSession({ client: dynamo, tableName, owner, sessionId, ...titled }));
    }
    // A named provider is checked before anything else; a model alone needs the session's provider.
    if (change.provider !== undefined)
      this.#deps.providers({ provider: change.provider, ...(change.model === undefined ? {} : { model: change.model }) }, { check: true });
    return this.#locked(owner, sessionId, async ({ store }) => {
      const provider = this.#deps.providers(
        {
          provider: change.provider ?? (store.activeModel() ?? this.#defaultModel()).provider,
          ...(change.model === undefined ? {} : { model: change.model }),
        },
        { check: true },
      );
      const metadata = await updateSession({
        client: dynamo,
        tableName,
        owner,
        sessionId,
        ...titled,
        activeModel: { provider: provider.name, model: provider.model },
      });
      return this.#summary(metadata);
    });
  }

  /**
   * Refuses (400 naming `parent_id`) a `parentId` the session does not hold, or one a prompt
   * cannot follow. For a route that must answer before it starts streaming; the turn checks
   * again (on the same cached log, no request).
   */
  async checkParent(lock: SessionLock, parentId: string | null): Promise<void> {
    await this.#checkParent(lock.store, parentId);
  }

  async #checkParent(store: DynamoStore, parentId: string | null): Promise<void> {
    if (parentId === null) return;
    const tree = await store.loadTree();
    const entry = tree.get(parentId);
    if (entry === undefined) throw unknownEntry('parent_id');
    if (!acceptsPrompt(tree.resolve(parentId))) {
      throw invalidField(
        'body',
        'parent_id',
        'a prompt cannot follow this entry: use an assistant message that calls no tools, a system message, a compaction, or null',
      );
    }
  }

  /**
   * Refuses (400 naming `entry_id`) an entry in the middle of a turn: a tool call whose
   * result is stored, or a result the turn went on from. Continuing there would show the
   * model a synthesized "interrupted" result for a tool that returned. A turn's end (an
   * entry nothing follows, or one a prompt already follows), a point a prompt can follow,
   * a prompt (it comes back as `dangling_user`), and the entry already active (a no-op) are
   * fine. An unknown id is left to the switch (400 too).
   */
  async #checkSwitch(store: DynamoStore, entryId: string): Promise<void> {
    const tree = await store.loadTree();
    if (tree.get(entryId) === undefined) return;
    const entry = tree.resolve(entryId);
    const next = tree.children(entry.id);
    const isPrompt = (candidate: SessionEntry): boolean => candidate.type === 'message' && candidate.message.role === 'user';
    if (entry.id === tree.activeLeaf || next.length === 0 || isPrompt(entry) || acceptsPrompt(entry) || next.some(isPrompt)) return;
    throw invalidField(
      'body',
      'entry_id',
      'the session cannot continue from the middle of a turn: use the end of a turn (an entry of `leaves`, an answer), a prompt, a system message or a compaction',
    );
  }

  #contents(store: DynamoStore, { conversation, danglingUser, entries }: LoadedSession): SessionContents {
    const metadata = store.metadata();
    return {
      id: store.sessionId(),
      messages: conversation.messages,
      entries,
      danglingUser,
      activeModel: this.#summary(metadata).activeModel,
      usage: conversation.usage(),
      entryCount: metadata.entryCount,
      turn: runningTurn(store.heldLease()),
    };
  }

  /**
   * Runs one turn: takes the session's lease (a `SessionBusyError` when another turn holds
   * it, before anything is written), persists the prompt, runs the step until the model
   * stops, `signal` aborts or a stop is requested, and releases the lease. A turn that lost
   * its lease stops and rejects with `SessionLeaseLostError`, what it committed kept.
   */
  async turn(owner: string, sessionId: string, text: string, options: TurnOptions): Promise<TurnOutcome> {
    return this.#locked(owner, sessionId, (lock) => this.#turn(lock, text, options));
  }

  /**
   * Takes the session's lease, and a store on it, with one request — for a turn that starts
   * later (a streamed turn answers 404 or 409 before its stream starts) — and renews it
   * until released. The caller must release the lock.
   */
  async lock(owner: string, sessionId: string): Promise<SessionLock> {
    const clock = this.#clock();
    const { store, lease } = await DynamoStore.lease({ ...this.#location(owner, sessionId), leaseMs: this.#deps.lease.leaseMs });
    const heartbeat = keepSessionLease(lease, {
      renewEveryMs: this.#deps.lease.renewEveryMs,
      clock,
      onRenewalError: (error) =>
        this.#report(`could not renew the lease of session ${sessionId} (it holds until ${new Date(lease.expiresAt).toISOString()})`, error),
    });
    return {
      store,
      signal: heartbeat.signal,
      get ended() {
        return heartbeat.ended;
      },
      release: async () => {
        await heartbeat.stop();
        await this.#release(lease, sessionId);
      },
    };
  }

  /**
   * Asks the turn (or compaction) running on the session to stop. It notices at its next
   * renewal and stops at its next chunk or tool boundary, keeping what it committed.
   * `TurnNotRunningError` when none runs; `SessionNotFoundError` as for `read`.
   */
  async stop(owner: string, sessionId: string): Promise<RunningTurn> {
    const { dynamo, tableName } = this.#deps;
    const clock = this.#clock();
    return runningTurn(await requestTurnStop({ client: dynamo, tableName, owner, sessionId, now: () => clock.now() }));
  }

  /**
   * Follows the session as it is written, by whichever process: opens it (a
   * `SessionNotFoundError` here, before anything is sent), then yields the running turn,
   * every message persisted from entry `from` on (default: the running turn's first entry,
   * or — when none runs — the end of the log), polling every `pollMs`, and `end` once the
   * turn has ended (its lease released or lapsed) or `signal` aborts.
   */
  async follow(owner: string, sessionId: string, options: { from?: number; signal: AbortSignal; pollMs: number }): Promise<AsyncIterable<FollowEvent>> {
    const store = await this.#open(owner, sessionId);
    return this.#follow(store, options);
  }

  async *#follow(store: DynamoStore, options: { from?: number; signal: AbortSignal; pollMs: number }): AsyncGenerator<FollowEvent> {
    const followed = store.heldLease();
    yield { type: 'turn', turn: runningTurn(followed) };
    let next = options.from ?? followed?.firstEntry ?? store.metadata().entryCount;
    for (;;) {
      const entries = await store.loadEntries();
      for (; next < entries.length; next++) {
        const entry = entries[next]!;
        if (entry.type === 'message')
          yield { type: 'message', index: next, record: { type: 'message', id: entry.id, timestamp: entry.timestamp, message: entry.message } };
      }
      // The META of that same read says whether the turn still runs: nothing it wrote before it ended is missed.
      const held = store.heldLease();
      const running = held !== null && held.leaseId === followed?.leaseId;
      if (!running || options.signal.aborted) {
        yield { type: 'end', entryCount: Math.max(next, entries.length), turn: running ? runningTurn(held) : null };
        return;
      }
      await pause(options.pollMs, options.signal);
    }
  }

  /**
   * Releases a lease, retrying with backoff while the store fails. Never rejects: a lease
   * that cannot be released expires by itself, and the turn's answer stands.
   */
  async #release(lease: SessionLease, sessionId: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await lease.release();
        return;
      } catch (error) {
        const delay = RELEASE_RETRY_DELAYS_MS[attempt];
        if (delay !== undefined) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          continue;
        }
        this.#report(`could not release the lease of session ${sessionId}; it holds the session until ${new Date(lease.expiresAt).toISOString()}`, error);
        return;
      }
    }
  }

  /** Runs a turn on a session locked with {@link lock}. */
  async turnLocked(lock: SessionLock, text: string, options: TurnOptions): Promise<TurnOutcome> {
    return this.#turn(lock, text, options);
  }

  /**
   * Summarises the session through its model, holding the lease like a turn. A stop request
   * ends it with `StopRequestedError`, a lost lease with `SessionLeaseLostError`; either
   * way nothing is written.
   */
  async compact(owner: string, sessionId: string, instructions: string | undefined, options: { signal: AbortSignal }): Promise<CompactionResult> {
    return this.#locked(owner, sessionId, async (lock) => {
      const agent = await this.#agent(lock.store);
      try {
        return await agent.compact(instructions, { signal: AbortSignal.any([options.signal, lock.signal]) });
      } catch (error) {
        if (error instanceof AbortedError) throw lock.ended?.error ?? error;
        throw error;
      }
    });
  }

  /** Exports the session (restoring it first if it is archived); the object is kept as an archive. */
  async export(owner: string, sessionId: string, expiresIn: number): Promise<SessionExport> {
    const { dynamo, tableName, s3, bucket } = this.#deps;
    return exportSession({ dynamo, tableName, s3, bucket, owner, sessionId, expiresIn });
  }

  /** The session's exports and archives, newest first, with fresh download URLs (an archived session stays archived). */
  async exports(owner: string, sessionId: string, expiresIn: number): Promise<ListedExport[]> {
    const { dynamo, tableName, s3, bucket } = this.#deps;
    return listExports({ dynamo, tableName, s3, bucket, owner, sessionId, expiresIn });
  }

  /**
   * Deletes the session with everything of it: entries, offloaded messages, exports and archives. A
   * session whose earlier delete did not finish (a tombstone) is finished, not refused.
   */
  async delete(owner: string, sessionId: string): Promise<void> {
    const { dynamo, tableName, s3, bucket } = this.#deps;
    await deleteSession({ client: dynamo, tableName, owner, sessionId, ...this.#s3(), exports: { client: s3, bucket } });
  }

  async #locked<T>(owner: string, sessionId: string, work: (lock: SessionLock) => Promise<T>): Promise<T> {
    const lock = await this.lock(owner, sessionId);
    try {
      return await work(lock);
    } finally {
      await lock.release();
    }
  }

  async #turn(lock: SessionLock, text: string, options: TurnOptions): Promise<TurnOutcome> {
    if (options.parentId !== undefined) await this.#checkParent(lock.store, options.parentId);
    const agent = await this.#agent(lock.store, options.parentId);
    const unsubscribe = options.receiver === undefined ? undefined : agent.subscribe(options.receiver);
    const records: DiskMessageRecord[] = [];
    const unrecord = agent.subscribe((event) => {
      if (event.type === 'entries-persisted') for (const record of event.records) if (record.type === 'message') records.push(record);
    });
    try {
      const prompt = await agent.submitUserMessage(text);
      const step = await agent.runStep(undefined, { signal: AbortSignal.any([options.signal, lock.signal]) });
      const cut = step.stopReason === 'aborted' ? lock.ended : null;
      // A turn that lost its lease answers as such, whether or not its last write was refused.
      if (cut?.type === 'lease-lost') throw cut.error;
      return { prompt, messages: [prompt.message, ...step.messages], records, step, stopRequested: cut?.type === 'stop-requested' };
    } finally {
      unrecord();
      unsubscribe?.();
    }
  }

  /** Logs a failure that reaches no caller: an outage in one line, anything else with its cause. */
  #report(what: string, error: unknown): void {
    const outage = outageOf(error);
    if (outage !== null) this.#deps.logOutage(`${what}: backend unavailable: ${outage}`);
    else this.#deps.log(what, error);
  }

  #clock(): LeaseClock {
    return this.#deps.clock ?? SYSTEM_LEASE_CLOCK;
  }

  /**
   * An agent on the session, with the provider its model needs. A provider this server
   * cannot use (no key for it) throws `ProviderNotConfiguredError` before anything is written.
   */
  async #agent(store: DynamoStore, at?: string | null): Promise<Agent> {
    // The head a lease or open read says which model the session uses; no load needed to pick it.
    const provider = this.#sessionProvider(store);
    const { agent } = await Agent.resume(store, { provider, tools: await this.#deps.tools() }, at === undefined ? {} : { at });
    return agent;
  }

  /**
   * The provider of the session's model. One this server does not know (an imported session
   * from a server with other providers) is, like one it holds no key for, a
   * `ProviderNotConfiguredError` (422): the request's body is not what is wrong.
   */
  #sessionProvider(store: DynamoStore): Provider {
    try {
      return this.#deps.providers(store.activeModel() ?? {});
    } catch (error) {
      if (error instanceof UnknownProviderError) {
        throw new ProviderNotConfiguredError(
          error.provider,
          `this server has no such provider (it has ${error.known.join(', ')}); choose one with PATCH /sessions/{id}`,
        );
      }
      throw error;
    }
  }

  async #open(owner: string, sessionId: string): Promise<DynamoStore> {
    return DynamoStore.open(this.#location(owner, sessionId));
  }

  #location(owner: string, sessionId: string): DynamoStoreOpenOptions {
    const { dynamo, tableName, cache } = this.#deps;
    const clock = this.#clock();
    // Leases are taken and judged by the lease clock, whether held here or read from META.
    return { client: dynamo, tableName, sessionId, owner, cache, clock: () => new Date(clock.now()), ...this.#s3() };
  }

  #s3(): { s3: { client: S3Client; bucket: string } } {
    return { s3: { client: this.#deps.s3, bucket: this.#deps.bucket } };
  }

  #summary(metadata: SessionMetadata): SessionSummary {
    return { metadata, activeModel: metadata.activeModel ?? this.#defaultModel() };
  }

  /** The server's default model, which sessions that chose none use. */
  #defaultModel(): ActiveModel {
    if (!this.#default) {
      const provider = this.#deps.providers({});
      this.#default = { provider: provider.name, model: provider.model };
    }
    return this.#default;
  }
}

/** What a lease on META says of the turn that holds it; null when none does. */
function runningTurn(lease: HeldLease): RunningTurn;
function runningTurn(lease: HeldLease | null): RunningTurn | null;
function runningTurn(lease: HeldLease | null): RunningTurn | null {
  return lease === null ? null : { startedAt: lease.startedAt, stopRequested: lease.stopRequested };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Whether a body is one line of JSON objects run together: a log whose newlines were stripped (`curl -d @file`). */
function isJoinedLines(body: Uint8Array): boolean {
  return body.indexOf(0x0a) === body.length - 1 && Buffer.from(body.buffer, body.byteOffset, body.byteLength).includes('}{');
}

/** Turns an `EntryNotFoundError` into a 400 naming the body field that gave the id. */
function asEntryField(field: string): (error: unknown) => never {
  return (error) => {
    throw error instanceof EntryNotFoundError ? unknownEntry(field, { cause: error }) : error;
  };
}
