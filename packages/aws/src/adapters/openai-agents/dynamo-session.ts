/**
 * The OpenAI Agents SDK's `Session` on the sessions table: a session's items are a log in
 * its partition (`OPENAI#<session>`), appended to by one conditional transaction per batch.
 */
import { randomUUID } from 'node:crypto';
import type { AgentInputItem, Session } from '@openai/agents-core';
import { appendToLog } from '../log/log-append.js';
import { clearLog, popFromLog } from '../log/log-edit.js';
import { readLog } from '../log/log-read.js';
import { UNSEEN, type LogAddress, type LogContext, type LogView } from '../log/log-types.js';
import { keyPart, OPENAI_PK_PREFIX } from '../shared/adapter-keys.js';
import { type AdapterOptions, KeyedQueue, logContext, requireString } from '../shared/adapter-options.js';
import { encodeItem, reviveItem } from './item-codec.js';

export interface DynamoSessionOptions extends AdapterOptions {
  /** The session to use (default: a new random UUID). */
  sessionId?: string;
  /**
   * Retention: each batch of items is kept this many seconds after it was added (DynamoDB TTL
   * on every item; reads leave it out from then on). Kept until cleared, when absent.
   */
  ttlSeconds?: number;
}

/**
 * An OpenAI Agents SDK `Session` on DynamoDB — the table `createTable` makes, big items in S3.
 * Each `addItems` is one all-or-nothing transaction that lands after whatever any other writer
 * committed (two runners on one session lose nothing); `popItem` and `clearSession` are
 * conditional too, so neither can remove an item it did not see.
 *
 * @example
 * import { Agent, run } from '@openai/agents';
 * import { DynamoSession } from '@panto/aws/openai-agents';
 *
 * const session = new DynamoSession({ client: new DynamoDBClient({}), tableName: 'panto', sessionId: 'chat-1' });
 * await run(agent, 'Hello', { session });
 */
export class DynamoSession implements Session {
  readonly #context: LogContext;
  readonly #address: LogAddress;
  readonly #sessionId: string;
  readonly #queue = new KeyedQueue();
  #view: LogView = UNSEEN;

  constructor(options: DynamoSessionOptions) {
    this.#context = logContext(options, options.ttlSeconds ?? null, reviveItem);
    this.#sessionId = requireString(options.sessionId ?? randomUUID(), 'sessionId');
    const part = keyPart(this.#sessionId);
    this.#address = { pk: `${OPENAI_PK_PREFIX}${part}`, sub: '', home: { s3: options.s3, objectId: `openai/${part}`, name: `openai:${this.#sessionId}` } };
  }

  async getSessionId(): Promise<string> {
    return this.#sessionId;
  }

  /** The session's items in the order they were added; with `limit`, only the newest `limit` (still oldest first). */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && limit <= 0) return [];
    return this.#queue.run('', async () => {
      const read = await readLog(this.#context, this.#address, this.#view.liveFrom, limit);
      this.#view = read === null ? UNSEEN : { exists: true, count: read.head.count, liveFrom: read.head.liveFrom };
      return (read?.entries ?? []) as AgentInputItem[];
    });
  }

  /** Adds the items after everything stored, all or none. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    const lines = items.map(encodeItem);
    await this.#queue.run('', async () => {
      this.#view = await appendToLog(this.#context, this.#address, this.#view, { lines, hash: null });
    });
  }

  /** Removes the newest item and returns it; undefined when the session is empty. */
  async popItem(): Promise<AgentInputItem | undefined> {
    return this.#queue.run('', async () => {
      const { popped, view } = await popFromLog(this.#context, this.#address);
      this.#view = view ?? UNSEEN;
      return popped as AgentInputItem | undefined;
    });
  }

  /** Removes every item: one conditional write empties the session, then the items are deleted. The session id stays. */
  async clearSession(): Promise<void> {
    await this.#queue.run('', async () => {
      this.#view = (await clearLog(this.#context, this.#address)) ?? UNSEEN;
    });
  }
}
