import { appendMessages, Conversation, replaceMessages } from '../conversation.js';
import { AgentBusyError, NothingToCompactError, ProviderError } from '../errors.js';
import { newId, systemClock, type Clock, type IdGenerator } from '../ids.js';
import { addUsage, assistantText, emptyUsage, toolCalls, type CompactionMessage, type Message, type SystemMode, type Usage } from '../messages.js';
import type { Provider } from '../providers/provider.js';
import type { DiskCompactionRecord, DiskMessage, DiskMessageRecord, LoadedSession, RecordEntry } from '../session/records.js';
import type { SessionStore } from '../session/store.js';
import { NullStore } from '../stores/null-store.js';
import { ToolRegistry, type BeforeToolCall } from '../tool.js';
import { compactedMessages, compactionPrompt, DEFAULT_COMPACTION_PROMPT } from './compaction.js';
import type { Receiver, StepResult } from './events.js';
import { abortError, callProvider, keepText } from './provider-call.js';
import { runTools } from './tool-execution.js';

export interface AgentConfig {
  /** The model the agent talks to; `agent.provider` can be changed later (e.g. `/model`). */
  provider: Provider;
  /** The tools offered to the model; tools may be registered after the agent is built. */
  tools?: ToolRegistry;
  /**
   * Consulted before each tool call runs; a refusal becomes an error result the model sees
   * (see {@link BeforeToolCall}). Extensions' guards reach the agent through it.
   */
  beforeToolCall?: BeforeToolCall;
  /** Provider calls one `runStep` may make before it stops (incomplete). Default 50. */
  maxProviderCalls?: number;
  /** Instructions for `compact()`; the default asks for a summary a model can continue from. */
  compactionPrompt?: string;
  /** Clock for entry timestamps (freeze it in tests). */
  clock?: Clock;
  /** Entry id generator (UUIDv7 by default; fix it in tests). */
  ids?: IdGenerator;
}

export interface AgentOptions {
  /**
   * Where a new session persists; a NullStore when absent. To continue a session a store
   * already holds, use {@link Agent.resume}, which reads it.
   */
  store?: SessionStore;
}

/** Where an agent's conversation now ends, after a resume, a `continueFrom` or a `switchLeaf`. */
export interface ResumePoint {
  /**
   * The trailing prompt nobody answered (a crash or quit right after it was sent), kept out
   * of the conversation; offer it for sending again. Null when there is none.
   */
  danglingUser: string | null;
  /**
   * The entry the conversation ends at (the dangling prompt, when there is one): the active
   * leaf, or the entry asked for. Null at the root (an empty session, or `null` asked for).
   */
  at: RecordEntry | null;
}

/** An agent on a session read back from its store. */
export interface ResumedAgent extends ResumePoint {
  agent: Agent;
}

export interface ResumeOptions {
  /**
   * Continue from this entry instead of the active leaf: the conversation is the path to it
   * and the next message the agent writes starts a new branch there (see `LoadOptions.at`);
   * nothing is written until then. `null` continues from the root.
   */
  at?: string | null;
}

export interface RunOptions {
  /** Aborts the step: the HTTP request is cancelled, running tools are told, and what was committed stays persisted. */
  signal?: AbortSignal;
}

export interface CompactionResult {
  summary: string;
  usage: Usage;
}

/**
 * Owns a conversation and a session store, runs the provider/tool loop, and persists
 * every message the moment it enters the conversation. The embedder never calls a
 * persist function.
 *
 * @example
 * const store = await FSJSONLStore.create(dir, { cwd: process.cwd() });
 * const agent = new Agent({ provider: new OfflineProvider() }, { store });
 * await agent.submitUserMessage('hello');       // on disk before any provider call
 * const result = await agent.runStep((event) => {
 *   if (event.type === 'text-delta') process.stdout.write(event.delta);
 * });
 */
export class Agent {
  readonly sessionStore: SessionStore;
  readonly tools: ToolRegistry;
  provider: Provider;
  readonly #maxProviderCalls: number;
  readonly #compactionPrompt: string;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #beforeToolCall: BeforeToolCall | undefined;
  readonly #listeners = new Set<Receiver>();
  #conversation: Conversation;
  #busy = false;

  /** An agent on a new session in `options.store` (or on no session at all). */
  constructor(config: AgentConfig, options: AgentOptions = {}) {
    this.provider = config.provider;
    this.tools = config.tools ?? new ToolRegistry();
    this.#maxProviderCalls = config.maxProviderCalls ?? 50;
    this.#compactionPrompt = config.compactionPrompt ?? DEFAULT_COMPACTION_PROMPT;
    this.#clock = config.clock ?? systemClock;
    this.#ids = config.ids ?? newId;
    this.#beforeToolCall = config.beforeToolCall;
    this.sessionStore = options.store ?? new NullStore();
    this.#conversation = new Conversation();
  }

  /**
   * An agent on the session `store` holds: the conversation is what the store rebuilds,
   * so the two can never disagree.
   *
   * @example
   * const { agent, danglingUser } = await Agent.resume(await FSJSONLStore.open(file), { provider });
   */
  static async resume(store: SessionStore, config: AgentConfig, options: ResumeOptions = {}): Promise<ResumedAgent> {
    const loaded = await store.loadConversation(options);
    const agent = new Agent(config, { store });
    agent.#conversation = loaded.conversation;
    return { agent, danglingUser: loaded.danglingUser, at: loaded.at };
  }

  /**
   * Goes back to an earlier entry of the session without writing anything: the
   * conversation becomes the path to `entryId` (as `store.loadConversation({ at })` rebuilds
   * it), and the next message the agent writes is chained after it — a new branch, which
   * then is the active one. `null` goes back to the root (an empty conversation).
   * `EntryNotFoundError` (the conversation unchanged) for an id the session does not hold.
   *
   * @example
   * const { danglingUser } = await agent.continueFrom(entryId); // e.g. the prompt to edit
   * await agent.submitUserMessage(edited ?? danglingUser ?? '');
   */
  async continueFrom(entryId: string | null): Promise<ResumePoint> {
    return this.#moveTo('continueFrom', () => this.sessionStore.loadConversation({ at: entryId }));
  }

  /**
   * Makes `entryId` the session's active leaf and the conversation its path, without
   * sending anything: the store records the switch (a leaf entry), so a later resume loads
   * this branch too. `EntryNotFoundError` for an id the session does not hold;
   * `SessionConflictError` (nothing changed) when another writer appended first.
   */
  async switchLeaf(entryId: string): Promise<ResumePoint> {
    return this.#moveTo('switchLeaf', () => this.sessionStore.switchLeaf(entryId));
  }

  /** Adopts the conversation a store call rebuilt, in place (whoever holds `conversation` sees it). */
  async #moveTo(operation: string, load: () => Promise<LoadedSession>): Promise<ResumePoint> {
    this.#assertIdle(operation);
    this.#busy = true;
    try {
      const loaded = await load();
      replaceMessages(this.#conversation, loaded.conversation.messages);
      return { danglingUser: loaded.danglingUser, at: loaded.at };
    } finally {
      this.#busy = false;
    }
  }

  /** The live conversation, read-only: it changes only through the agent, after the store has the change. */
  get conversation(): Conversation {
    return this.#conversation;
  }

  /**
   * Calls `listener` with every event from now on — steps, compactions, and the
   * `entries-persisted` of every write. Returns the unsubscribe function.
   */
  subscribe(listener: Receiver): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Adds the user's prompt and persists it, stamped with the current provider and model,
   * before it returns — so it is durable before any provider call. Returns the record as
   * stored (its entry id and timestamp).
   */
  async submitUserMessage(text: string): Promise<DiskMessageRecord> {
    this.#assertIdle('submitUserMessage');
    const [record] = await this.#commitMessages([{ role: 'user', content: text, provider: this.provider.name, model: this.provider.model }], this.#emitter());
    return record!;
  }

  /** Adds and persists a system message that replaces the system prompt or appends to it. Returns the record as stored. */
  async addSystemMessage(text: string, mode: SystemMode = 'append'): Promise<DiskMessageRecord> {
    this.#assertIdle('addSystemMessage');
    const [record] = await this.#commitMessages([{ role: 'system', content: text, mode }], this.#emitter());
    return record!;
  }

  /**
   * Runs provider → tools → provider until the model stops. Each assistant message is
   * persisted together with its tool results as one batch. A provider failure, or an
   * abort, ends the step with what was committed persisted; it is reported as an `error`
   * event and in the result, not thrown. A store failure is thrown.
   */
  async runStep(receiver: Receiver = () => {}, options: RunOptions = {}): Promise<StepResult> {
    this.#assertIdle('runStep');
    this.#busy = true;
    const emit = this.#emitter(receiver);
    emit({ type: 'step-start' });
    const signal = options.signal ?? new AbortController().signal;
    const added: Message[] = [];
    let usage = emptyUsage();
    let providerCalls = 0;
    const finish = (result: Omit<StepResult, 'messages' | 'usage' | 'providerCalls'>): StepResult => {
      const full: StepResult = { ...result, messages: added, usage, providerCalls };
      if (full.error) emit({ type: 'error', error: full.error });
      emit({ type: 'step-end', result: full });
      return full;
    };
    // `last`: the step ends with this batch (a store holding a lease may give it up in the same write).
    const commit = async (messages: Exclude<Message, CompactionMessage>[], last = false): Promise<void> => {
      await this.#commitMessages(messages, emit, last);
      added.push(...messages);
    };
    try {
      for (;;) {
        if (signal.aborted) return finish({ stopReason: 'aborted', error: abortError(signal), incomplete: true });
        if (providerCalls >= this.#maxProviderCalls) {
          return finish({
            stopReason: this.conversation.lastAssistant()?.stop_reason ?? 'tool_use',
            incomplete: true,
          });
        }
        providerCalls++;
        const outcome = await callProvider(this.provider, this.conversation.messages, this.tools, signal, emit);
        if (outcome.type === 'error') {
          const aborted = signal.aborted;
          const partial = outcome.partial ? keepText(outcome.partial, aborted, outcome.error) : undefined;
          if (partial) {
            usage = addUsage(usage, partial.usage);
            await commit([partial], true);
          }
          return finish({
            stopReason: aborted ? 'aborted' : 'error',
            error: aborted ? abortError(signal) : outcome.error,
            incomplete: true,
          });
        }
        const { message, refused } = outcome;
        usage = addUsage(usage, message.usage);
        const calls = toolCalls(message);
        if (calls.length === 0) {
          await commit([message], true);
          return finish({ stopReason: message.stop_reason, incomplete: false });
        }
        const results = await runTools(this.tools, this.#beforeToolCall, calls, refused, signal, emit);
        await commit([message, ...results]);
        if (signal.aborted) return finish({ stopReason: 'aborted', error: abortError(signal), incomplete: true });
      }
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Summarises the conversation through the provider and persists a compaction entry;
   * the conversation becomes its system messages plus the summary, and so does every
   * later load. `NothingToCompactError` (changing nothing) when there is nothing but the
   * system prompt; throws (changing nothing) when the provider fails.
   */
  async compact(instructions?: string, options: RunOptions & { receiver?: Receiver } = {}): Promise<CompactionResult> {
    this.#assertIdle('compact');
    const messages = this.conversation.messages;
    if (!messages.some((message) => message.role !== 'system')) throw new NothingToCompactError();
    this.#busy = true;
    try {
      const emit = this.#emitter(options.receiver);
      emit({ type: 'compaction-start' });
      const signal = options.signal ?? new AbortController().signal;
      const prompt = compactionPrompt(this.#compactionPrompt, instructions);
      const outcome = await callProvider(this.provider, [...messages, { role: 'user', content: prompt }], this.tools, signal, emit, 'compaction');
      if (outcome.type === 'error') throw outcome.error;
      const summary = assistantText(outcome.message).trim();
      if (summary === '') throw new ProviderError(this.provider.name, 'the provider returned an empty summary');
      const record: DiskCompactionRecord = {
        type: 'compaction',
        id: this.#ids(),
        timestamp: this.#clock().toISOString(),
        summary,
        provider: outcome.message.provider,
        model: outcome.message.model,
        usage: outcome.message.usage,
        prior_usage: this.conversation.usage(),
      };
      await this.#commit([record], emit, true);
      emit({ type: 'compaction-end', summary, usage: record.usage });
      return { summary, usage: record.usage };
    } finally {
      this.#busy = false;
    }
  }

  /** The one write path: persists records as one batch, then applies them to the conversation, then says so. */
  async #commit(records: readonly DiskMessage[], emit: Receiver, last = false): Promise<void> {
    await (last ? this.sessionStore.appendMessages(records, { last }) : this.sessionStore.appendMessages(records));
    for (const record of records) {
      if (record.type === 'message') {
        appendMessages(this.#conversation, [record.message]);
        continue;
      }
      replaceMessages(this.#conversation, compactedMessages(this.#conversation.messages, record));
    }
    emit({ type: 'entries-persisted', records });
  }

  /** Commits messages (one batch, one timestamp) and returns their records. */
  async #commitMessages(messages: readonly Exclude<Message, CompactionMessage>[], emit: Receiver, last = false): Promise<DiskMessageRecord[]> {
    const timestamp = this.#clock().toISOString();
    const records = messages.map((message): DiskMessageRecord => ({ type: 'message', id: this.#ids(), timestamp, message }));
    await this.#commit(records, emit, last);
    return records;
  }

  /** Emits to `receiver` (if any) and to every subscriber, none of which may break the agent. */
  #emitter(receiver?: Receiver): Receiver {
    const targets = receiver === undefined ? [...this.#listeners] : [receiver, ...this.#listeners];
    return (event) => {
      for (const target of targets) {
        try {
          target(event);
        } catch {
          // A receiver must not throw; if it does, persistence goes on regardless.
        }
      }
    };
  }

  #assertIdle(operation: string): void {
    if (this.#busy) throw new AgentBusyError(operation);
  }
}
