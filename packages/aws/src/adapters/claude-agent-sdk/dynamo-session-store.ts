/**
 * The Claude Agent SDK's `SessionStore` on the sessions table: each transcript (a session's
 * main one, and each subagent's `subpath`) is a log in the session's partition
 * (`CLAUDE#<project>#<session>`), appended to by one conditional transaction per batch.
 */
import { createHash } from 'node:crypto';
import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GSI_BY_OWNER } from '../../table/keys.js';
import { namesFor } from '../../table/expressions.js';
import { appendToLog } from '../log/log-append.js';
import { removeLog } from '../log/log-edit.js';
import { readLog } from '../log/log-read.js';
import { decodeHead, isExpired, UNSEEN, type LogAddress, type LogContext, type LogView } from '../log/log-types.js';
import { ADAPTER_ATTR } from '../shared/adapter-attributes.js';
import { LISTED_UNDER, PARTITION_PREFIX } from '../shared/adapter-expressions.js';
import { CLAUDE_PK_PREFIX, fromKeyPart, keyPart, LOG_HEAD_SK_PREFIX, subOfHeadSk } from '../shared/adapter-keys.js';
import { type AdapterOptions, KeyedQueue, logContext, requireString } from '../shared/adapter-options.js';
import type { SessionKey, SessionStore, SessionStoreEntry } from './types.js';

/** The `byOwner` index key of a project's sessions. */
const PROJECT_PK_PREFIX = 'CLAUDE_PROJECT#';

export interface DynamoSessionStoreOptions extends AdapterOptions {
  /**
   * Retention: each batch is kept this many seconds after it was appended (DynamoDB TTL on
   * every item; loads leave it out from then on), so a transcript nobody appends to is gone
   * entirely that long after its last batch. Kept until deleted, when absent.
   */
  ttlSeconds?: number;
}

/**
 * A Claude Agent SDK `SessionStore` on DynamoDB — the table `createTable` makes, big entries
 * in S3 — with all five methods. Each `append` is one all-or-nothing transaction that lands
 * after whatever any other writer committed (none is lost, and a batch the SDK sends again
 * after a lost answer is not stored twice); `load` reads the transcript with consistent,
 * paginated reads.
 *
 * @example
 * import { query } from '@anthropic-ai/claude-agent-sdk';
 * import { DynamoSessionStore } from '@panto/aws/claude-agent-sdk';
 *
 * const sessionStore = new DynamoSessionStore({ client: new DynamoDBClient({}), tableName: 'panto' });
 * for await (const message of query({ prompt: 'Hello', options: { sessionStore } })) console.log(message);
 */
export class DynamoSessionStore implements SessionStore {
  readonly #context: LogContext;
  readonly #queue = new KeyedQueue();
  /** What this store last knew of each transcript: its next append is sent without reading first. */
  readonly #views = new Map<string, LogView>();

  constructor(options: DynamoSessionStoreOptions) {
    this.#context = logContext(options, options.ttlSeconds ?? null);
  }

  /** Appends the entries, in order, as one transaction after everything stored; in call order per transcript. */
  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    const address = transcriptOf(key, this.#context);
    if (entries.length === 0) return;
    const lines = entries.map((entry) => JSON.stringify(entry));
    // Entries with ids (most of them) make the batch recognisable when the SDK sends it again.
    const hash = entries.every((entry) => typeof entry.uuid === 'string') ? createHash('sha256').update(lines.join('\n')).digest('hex') : null;
    const id = `${address.pk}\n${address.sub}`;
    await this.#queue.run(id, async () => {
      this.#views.set(id, await appendToLog(this.#context, address, this.#views.get(id) ?? UNSEEN, { lines, hash }));
    });
  }

  /** Every entry of the transcript, in append order; null when it was never written, was deleted, or expired. */
  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const address = transcriptOf(key, this.#context);
    const id = `${address.pk}\n${address.sub}`;
    return this.#queue.run(id, async () => {
      const read = await readLog(this.#context, address, this.#views.get(id)?.liveFrom ?? 0);
      if (read === null) {
        this.#views.delete(id);
        return null;
      }
      this.#views.set(id, { exists: true, count: read.head.count, liveFrom: read.head.liveFrom });
      return read.entries.length === 0 ? null : (read.entries as SessionStoreEntry[]);
    });
  }

  /** The project's sessions that have a main transcript, with when it was last appended to (epoch ms); in no order. */
  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    requireString(projectKey, 'projectKey');
    const sessions: Array<{ sessionId: string; mtime: number }> = [];
    const prefix = `${CLAUDE_PK_PREFIX}${keyPart(projectKey)}#`;
    const now = this.#context.clock();
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.#context.client.send(
        new QueryCommand({
          TableName: this.#context.tableName,
          IndexName: GSI_BY_OWNER,
          KeyConditionExpression: LISTED_UNDER,
          ExpressionAttributeNames: namesFor(LISTED_UNDER),
          ExpressionAttributeValues: { ':gsi1pk': { S: `${PROJECT_PK_PREFIX}${keyPart(projectKey)}` } },
          ...(start === undefined ? {} : { ExclusiveStartKey: start }),
        }),
      );
      for (const item of page.Items ?? []) {
        const head = decodeHead(item);
        const pk = item[ADAPTER_ATTR.pk]?.S ?? '';
        if (head === null || !pk.startsWith(prefix) || isExpired(head.expiresAt, now) || head.updatedAt === null) continue;
        sessions.push({ sessionId: fromKeyPart(pk.slice(prefix.length)), mtime: Date.parse(head.updatedAt) });
      }
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return sessions;
  }

  /**
   * Deletes a transcript: with a `subpath`, that subagent's alone; without, the session's main
   * transcript and every subagent's. Its items and offloaded texts are deleted; a key that
   * was never written is no error.
   */
  async delete(key: SessionKey): Promise<void> {
    const main = transcriptOf(key, this.#context);
    const subs = key.subpath === undefined ? (await this.#heads(key)).map((head) => head.sub).filter((sub) => sub !== '') : [];
    for (const address of [main, ...subs.map((subpath) => transcriptOf({ ...key, subpath }, this.#context))]) {
      const id = `${address.pk}\n${address.sub}`;
      await this.#queue.run(id, async () => {
        await removeLog(this.#context, address);
        this.#views.delete(id);
      });
    }
  }

  /** The subpaths of the session's subagent transcripts that hold entries; never the main transcript. */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const now = this.#context.clock();
    return (await this.#heads(key)).filter((head) => head.sub !== '' && head.live && !isExpired(head.expiresAt, now)).map((head) => head.sub);
  }

  /** The heads of every transcript of the session (consistent, paginated). */
  async #heads(key: { projectKey: string; sessionId: string }): Promise<Array<{ sub: string; live: boolean; expiresAt: number | null }>> {
    const { pk } = transcriptOf({ projectKey: key.projectKey, sessionId: key.sessionId }, this.#context);
    const heads: Array<{ sub: string; live: boolean; expiresAt: number | null }> = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.#context.client.send(
        new QueryCommand({
          TableName: this.#context.tableName,
          KeyConditionExpression: PARTITION_PREFIX,
          ExpressionAttributeNames: namesFor(PARTITION_PREFIX),
          ExpressionAttributeValues: { ':pk': { S: pk }, ':prefix': { S: LOG_HEAD_SK_PREFIX } },
          ConsistentRead: true,
          ...(start === undefined ? {} : { ExclusiveStartKey: start }),
        }),
      );
      for (const item of page.Items ?? []) {
        const sub = subOfHeadSk(item[ADAPTER_ATTR.sk]?.S ?? '');
        const head = decodeHead(item);
        if (sub !== undefined && head !== null) heads.push({ sub, live: head.count > head.liveFrom, expiresAt: head.expiresAt });
      }
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return heads;
  }
}

/** Where a transcript's log is; `TypeError` for a key the SDK would never send. */
function transcriptOf(key: SessionKey, context: LogContext): LogAddress {
  const project = keyPart(requireString(key?.projectKey, 'projectKey'));
  const session = keyPart(requireString(key.sessionId, 'sessionId'));
  const sub = key.subpath === undefined ? '' : requireString(key.subpath, 'subpath');
  const pk = `${CLAUDE_PK_PREFIX}${project}#${session}`;
  return {
    pk,
    sub,
    home: {
      s3: context.s3,
      objectId: `claude/${project}/${session}/${sub === '' ? 'main' : `sub/${keyPart(sub)}`}`,
      name: `claude:${key.projectKey}/${key.sessionId}${sub === '' ? '' : `/${sub}`}`,
    },
    ...(sub === '' ? { listed: { gsi1pk: `${PROJECT_PK_PREFIX}${project}`, gsi1sk: session } } : {}),
  };
}
