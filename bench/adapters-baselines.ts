/**
 * What a user of each SDK would otherwise run on the same AWS emulators, for the adapters
 * bench to measure against (docs/adapters.md says why each):
 * - Claude Agent SDK: Anthropic ships no DynamoDB `SessionStore`; its reference adapter for AWS
 *   is `S3SessionStore` (examples/session-stores/s3, not on npm and not licensed for copying).
 *   `S3PartsSessionStore` is written here after its README: one JSONL part object per append
 *   (`<project>/<session>/part-<epoch ms, 13 digits>-<6 hex>.jsonl`), a load lists the parts,
 *   sorts them and fetches them 16 at a time.
 * - OpenAI Agents SDK: the JS SDK ships memory and OpenAI-hosted sessions only; its examples
 *   keep a session as one JSON document (`FileSession`), and LangChain's
 *   `DynamoDBChatMessageHistory` keeps a history as one DynamoDB item appended with
 *   `list_append`. `SingleItemSession` is that design.
 * (LangGraph's baseline is a package: `@rwai/langgraphjs-checkpoint-dynamodb`.)
 */
import { GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { AgentInputItem } from '@openai/agents-core';
import type { SessionKey, SessionStoreEntry } from '@panto/aws/claude-agent-sdk';

export class S3PartsSessionStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  #lastMs = 0;

  constructor(client: S3Client, bucket: string) {
    this.#client = client;
    this.#bucket = bucket;
  }

  #prefix(key: SessionKey): string {
    return `${[key.projectKey, key.sessionId, ...(key.subpath === undefined ? [] : [key.subpath])].join('/')}/`;
  }

  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const ms = Math.max(Date.now(), this.#lastMs + 1);
    this.#lastMs = ms;
    const name = `part-${String(ms).padStart(13, '0')}-${Math.random().toString(16).slice(2, 8).padStart(6, '0')}.jsonl`;
    const body = `${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`;
    await this.#client.send(
      new PutObjectCommand({ Bucket: this.#bucket, Key: `${this.#prefix(key)}${name}`, Body: body, ContentType: 'application/x-ndjson' }),
    );
  }

  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const prefix = this.#prefix(key);
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key !== undefined && !object.Key.slice(prefix.length).includes('/')) keys.push(object.Key);
      token = page.NextContinuationToken;
    } while (token !== undefined);
    if (keys.length === 0) return null;
    keys.sort((a, b) => a.localeCompare(b));
    const entries: SessionStoreEntry[] = [];
    for (let start = 0; start < keys.length; start += 16) {
      const bodies = await Promise.all(
        keys
          .slice(start, start + 16)
          .map(async (Key) => (await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key }))).Body?.transformToString()),
      );
      for (const body of bodies) for (const line of (body ?? '').split('\n')) if (line.trim() !== '') entries.push(JSON.parse(line) as SessionStoreEntry);
    }
    return entries;
  }
}

export class SingleItemSession {
  readonly #client: DynamoDBClient;
  readonly #tableName: string;
  readonly #key: Record<string, { S: string }>;

  constructor(client: DynamoDBClient, tableName: string, sessionId: string) {
    this.#client = client;
    this.#tableName = tableName;
    this.#key = { pk: { S: `BASELINE#${sessionId}` }, sk: { S: 'ITEMS' } };
  }

  async getItems(): Promise<AgentInputItem[]> {
    const { Item } = await this.#client.send(new GetItemCommand({ TableName: this.#tableName, Key: this.#key, ConsistentRead: true }));
    return (Item?.items?.L ?? []).map((value) => JSON.parse(value.S ?? 'null') as AgentInputItem);
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.#client.send(
      new UpdateItemCommand({
        TableName: this.#tableName,
        Key: this.#key,
        UpdateExpression: 'SET #items = list_append(if_not_exists(#items, :empty), :new)',
        ExpressionAttributeNames: { '#items': 'items' },
        ExpressionAttributeValues: { ':empty': { L: [] }, ':new': { L: items.map((item) => ({ S: JSON.stringify(item) })) } },
      }),
    );
  }
}
