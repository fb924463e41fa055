/** An owner's sessions, listed newest first (updating one: update-session.ts; deleting one: delete-session.ts). */
import { QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { systemClock } from '@panto/core/store-kit';
import { InvalidCursorError } from '../errors.js';
import type { SessionMetadata } from '../meta/meta-item.js';
import { ATTR } from '../table/attributes.js';
import { namesFor, NOT_EXPIRED_FILTER, QUERY_OWNER } from '../table/expressions.js';
import { GSI_BY_OWNER, META_SK, ownerPk, SESSION_PK_PREFIX } from '../table/keys.js';
import { assertValidOwner } from '../table/validation.js';
import { listedSessions } from './listed-metadata.js';

export const DEFAULT_LIST_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;
/** Index queries one `listOwnerSessions` call makes at most. */
const MAX_QUERIES_PER_PAGE = 5;

export interface ListSessionsOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  /** Sessions per page, 1–100 (default 20). */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** Tells the time, to hide sessions whose TTL passed (default: the system clock). */
  clock?: () => Date;
}

export interface SessionPage {
  sessions: SessionMetadata[];
  /**
   * Pass as `cursor` for the next page; null on the last one. Null also when the last page
   * holds exactly `limit` sessions. (Not null, rarely, before a page of nothing but expired
   * sessions the filter hides, when the index holds many of them.)
   */
  nextCursor: string | null;
}

/**
 * An owner's sessions, most recently updated first, from the `byOwner` index (eventually
 * consistent: a session appended to a moment ago may still show its previous place). Each
 * shows its log as of its last write that moved `updatedAt`: while a turn runs, the count and
 * head from before its prompt (see listed-metadata.ts).
 *
 * @example
 * let cursor: string | undefined;
 * do {
 *   const page = await listOwnerSessions({ client, tableName, owner, cursor });
 *   for (const session of page.sessions) console.log(session.id, session.title);
 *   cursor = page.nextCursor ?? undefined;
 * } while (cursor !== undefined);
 */
export async function listOwnerSessions(options: ListSessionsOptions): Promise<SessionPage> {
  assertValidOwner(options.owner);
  const limit = options.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  let startKey = options.cursor === undefined ? undefined : decodeCursor(options.cursor, options.owner);
  const nowSeconds = Math.floor((options.clock ?? systemClock)().getTime() / 1000);
  const sessions: SessionMetadata[] = [];
  /** The index keys of each session in `sessions`: a page that ends mid-query ends at its last one. */
  const keys: Record<string, AttributeValue>[] = [];
  let queries = 0;
  do {
    const page = await options.client.send(
      new QueryCommand({
        TableName: options.tableName,
        IndexName: GSI_BY_OWNER,
        KeyConditionExpression: QUERY_OWNER,
        FilterExpression: NOT_EXPIRED_FILTER,
        ExpressionAttributeNames: namesFor(QUERY_OWNER, NOT_EXPIRED_FILTER),
        ExpressionAttributeValues: {
          ':gsi1pk': { S: ownerPk(options.owner) },
          ':now_seconds': { N: String(nowSeconds) },
        },
        ScanIndexForward: false,
        // One more than the page holds: whether it comes back says whether there is a next page.
        // (A LastEvaluatedKey alone does not: DynamoDB returns one whenever it stopped at Limit.)
        Limit: limit + 1 - sessions.length,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    for (const { item, metadata } of await listedSessions(options.client, options.tableName, page.Items ?? [])) {
      sessions.push(metadata);
      keys.push(Object.fromEntries(CURSOR_KEYS.map((name) => [name, item[name] ?? { S: '' }])));
    }
    startKey = page.LastEvaluatedKey;
    // Expired sessions (filtered out) can make pages come back short or empty; a page may
    // then hold fewer than `limit` sessions, but a call never loops on them unboundedly.
  } while (startKey !== undefined && sessions.length <= limit && ++queries < MAX_QUERIES_PER_PAGE);
  if (sessions.length > limit) {
    // The extra session proves there is more: the next page starts after the last one kept.
    sessions.length = limit;
    return { sessions, nextCursor: encodeCursor(keys[limit - 1]!) };
  }
  return { sessions, nextCursor: startKey === undefined ? null : encodeCursor(startKey) };
}

const CURSOR_KEYS = [ATTR.pk, ATTR.sk, ATTR.gsi1pk, ATTR.gsi1sk] as const;

/** A LastEvaluatedKey of the `byOwner` index as an opaque base64url string. */
export function encodeCursor(key: Record<string, AttributeValue>): string {
  const plain: Record<string, string> = {};
  for (const name of CURSOR_KEYS) plain[name] = key[name]?.S ?? '';
  return Buffer.from(JSON.stringify(plain), 'utf8').toString('base64url');
}

/** The ExclusiveStartKey a cursor stands for; `InvalidCursorError` unless it is one of this owner's. */
export function decodeCursor(cursor: string, owner: string): Record<string, AttributeValue> {
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch (error) {
    throw new InvalidCursorError('not a cursor this service issued', { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCursorError('not a cursor this service issued');
  const fields = value as Record<string, unknown>;
  if (Object.keys(fields).length !== CURSOR_KEYS.length || CURSOR_KEYS.some((name) => typeof fields[name] !== 'string')) {
    throw new InvalidCursorError('not a cursor this service issued');
  }
  const key = fields as Record<(typeof CURSOR_KEYS)[number], string>;
  if (key.gsi1pk !== ownerPk(owner) || !key.pk.startsWith(SESSION_PK_PREFIX) || key.sk !== META_SK) {
    throw new InvalidCursorError('the cursor belongs to another listing');
  }
  return Object.fromEntries(CURSOR_KEYS.map((name) => [name, { S: key[name] }]));
}
