/**
 * What the HTTP routes do, without HTTP: every call rebuilds what it needs from DynamoDB
 * (take or open the store, load the conversation, build an agent). The one thing kept
 * between requests is the {@link SessionCache}: a warm process reads only what is new.
 *
 * A plain turn costs four requests in a warm process: the lease (one conditional
 * UpdateItem that also proves the owner and returns the session's head), the prompt's
 * append, the answer's append, and the release. A cold process adds one Query for the log.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  deleteSession,
  DynamoStore,
  exportSession,
  listOwnerSessions,
  SessionCache,
  type DynamoStoreOpenOptions,
  type SessionExport,
  type SessionLease,
  type SessionMetadata,
} from '@panto/aws';
import {
  Agent,
  type ActiveModel,
  type CompactionResult,
  type DiskMessageRecord,
  type Message,
  type Provider,
  type Receiver,
  type StepResult,
  type ToolRegistry,
  type Usage,
} from '@panto/core';
import { outageOf } from './errors.js';
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
}

/**
 * Pauses before each retry of a lease release that failed. A lease that is not released
 * holds its session for its whole term (35 s for a turn), so when the store fails (an
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
  danglingUser: string | null;
  activeModel: ActiveModel;
  usage: Usage;
}

export interface TurnOutcome {
  /** The user's prompt as stored, and everything the step added, all persisted. */
  prompt: DiskMessageRecord;
  messages: Message[];
  step: StepResult;
}

/** A session nobody else may change until {@link SessionLock.release}. */
export interface SessionLock {
  store: DynamoStore;
  /** Frees the session. Never rejects. */
  release(): Promise<void>;
}

export interface TurnOptions {
  /** Ends the step early; everything committed so far stays persisted. */
  signal: AbortSignal;
  /** Sees every event of the turn, the prompt's `entries-persisted` first. Must not throw. */
  receiver?: Receiver;
}

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
    const { conversation, danglingUser } = await store.loadConversation();
    return {
      id: store.sessionId(),
      messages: conversation.messages,
      danglingUser,
      activeModel: this.#summary(store.metadata()).activeModel,
      usage: conversation.usage(),
    };
  }

  /**
   * Runs one turn: takes the session's lease (a `SessionBusyError` when another turn holds
   * it, before anything is written), persists the prompt, runs the step until the model
   * stops or `signal` aborts, and releases the lease.
   */
  async turn(owner: string, sessionId: string, text: string, options: TurnOptions & { leaseMs: number }): Promise<TurnOutcome> {
    return this.#locked(owner, sessionId, options.leaseMs, (store) => this.#turn(store, text, options));
  }

  /**
   * Takes the session's lease, and a store on it, with one request — for a turn that starts
   * later (a streamed turn answers 404 or 409 before its stream starts). The caller must
   * release the lock.
   */
  async lock(owner: string, sessionId: string, leaseMs: number): Promise<SessionLock> {
    const { store, lease } = await DynamoStore.lease({ ...this.#location(owner, sessionId), leaseMs });
    return { store, release: () => this.#release(lease, sessionId) };
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
        const outage = outageOf(error);
        const what = `could not release the lease of session ${sessionId}; it holds the session until ${new Date(lease.expiresAt).toISOString()}`;
        if (outage !== null) this.#deps.logOutage(`${what}: backend unavailable: ${outage}`);
        else this.#deps.log(what, error);
        return;
      }
    }
  }

  /** Runs a turn on a session locked with {@link lock}. */
  async turnLocked(lock: SessionLock, text: string, options: TurnOptions): Promise<TurnOutcome> {
    return this.#turn(lock.store, text, options);
  }

  /** Summarises the session through its model, holding the lease like a turn. */
  async compact(
    owner: string,
    sessionId: string,
    instructions: string | undefined,
    options: { leaseMs: number; signal: AbortSignal },
  ): Promise<CompactionResult> {
    return this.#locked(owner, sessionId, options.leaseMs, async (store) => {
      const agent = await this.#agent(store);
      return agent.compact(instructions, { signal: options.signal });
    });
  }

  async export(owner: string, sessionId: string, expiresIn: number): Promise<SessionExport> {
    const { dynamo, tableName, s3, bucket } = this.#deps;
    return exportSession({ dynamo, tableName, s3, bucket, owner, sessionId, expiresIn });
  }

  /**
   * Deletes the session with everything of it: entries, offloaded messages and exports. A
   * session whose earlier delete did not finish (a tombstone) is finished, not refused.
   */
  async delete(owner: string, sessionId: string): Promise<void> {
    const { dynamo, tableName, s3, bucket } = this.#deps;
    await deleteSession({ client: dynamo, tableName, owner, sessionId, ...this.#s3(), exports: { client: s3, bucket } });
  }

  async #locked<T>(owner: string, sessionId: string, leaseMs: number, work: (store: DynamoStore) => Promise<T>): Promise<T> {
    const lock = await this.lock(owner, sessionId, leaseMs);
    try {
      return await work(lock.store);
    } finally {
      await lock.release();
    }
  }

  async #turn(store: DynamoStore, text: string, options: TurnOptions): Promise<TurnOutcome> {
    const agent = await this.#agent(store);
    const unsubscribe = options.receiver === undefined ? undefined : agent.subscribe(options.receiver);
    try {
      const prompt = await agent.submitUserMessage(text);
      const step = await agent.runStep(undefined, { signal: options.signal });
      return { prompt, messages: [prompt.message, ...step.messages], step };
    } finally {
      unsubscribe?.();
    }
  }

  /**
   * An agent on the session, with the provider its model needs. A provider this server
   * cannot use (no key for it) throws `ProviderNotConfiguredError` before anything is written.
   */
  async #agent(store: DynamoStore): Promise<Agent> {
    // The head a lease or open read says which model the session uses; no load needed to pick it.
    const provider = this.#deps.providers(store.activeModel() ?? {});
    const { agent } = await Agent.resume(store, { provider, tools: await this.#deps.tools() });
    return agent;
  }

  async #open(owner: string, sessionId: string): Promise<DynamoStore> {
    return DynamoStore.open(this.#location(owner, sessionId));
  }

  #location(owner: string, sessionId: string): DynamoStoreOpenOptions {
    const { dynamo, tableName, cache } = this.#deps;
    return { client: dynamo, tableName, sessionId, owner, cache, ...this.#s3() };
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
