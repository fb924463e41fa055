/**
 * The META item — one per session, what every other part reads first: its shape, how it is
 * first written (by a create, or by an import or fork once its entries are in), the one
 * consistent read of it by key, and its decoding.
 */
import { GetItemCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionCorruptError, type ActiveModel } from '@panto/core/store-kit';
import { SessionExistsError } from '../errors.js';
import { ATTR } from '../table/attributes.js';
import { CREATE_CONDITION, namesFor } from '../table/expressions.js';
import { activityPk, activitySk, itemSource, META_SK, metaKey, ownerPk, ownerSk, SESSION_PK_PREFIX, sessionPk } from '../table/keys.js';
import { isConditionalCheckFailed } from '../table/sdk-errors.js';

/** What the META item says about a session: what `listOwnerSessions` returns, per session. */
export interface SessionMetadata {
  id: string;
  owner: string;
  /** ISO-8601. */
  createdAt: string;
  /** ISO-8601 time of the last append (or of creation). */
  updatedAt: string;
  entryCount: number;
  /** The newest entry's id; null while the session is empty. */
  head: string | null;
  /** The provider and model of the newest entry that names them. */
  activeModel: ActiveModel | null;
  /** The first user prompt, whitespace collapsed and cut to `TITLE_MAX_LENGTH` (title.ts); null until there is one. */
  title: string | null;
  /** Whether the session is archived: its entries are in S3, and opening it restores them. */
  archived: boolean;
}

/** A META item, decoded. */
export interface MetaRecord {
  metadata: SessionMetadata;
  /** The JSONL header line, newline included. */
  header: string;
  /** The parent the next append chains to (the head, or a dangling prompt's parent). */
  nextParent: string | null;
  ttlSeconds: number | null;
  /** Epoch seconds; null when the session never expires. */
  expiresAt: number | null;
  /** ISO-8601 time a delete began; non-null means META is a tombstone and the session is gone. */
  deletedAt: string | null;
  /** Random per creation of the session (null for sessions made before it existed). */
  incarnation: string | null;
  /** The turn lease META holds, expired or not; null when none does. */
  lease: HeldLease | null;
  /** The session's newest archive object, if it was ever archived (kept after a restore). */
  archive: ArchiveObject | null;
  /** ISO-8601 time it was archived, while it is: its entries are in `archive`, not in the table. */
  archivedAt: string | null;
  /** The claim of a sweeper removing an archived session's items, or of a request restoring it. */
  archiveClaim: { claimId: string; expiresAt: number } | null;
  /** Whether META is in the `byActivity` index: the session's items may be in the table. */
  activityIndexed: boolean;
  /** ISO-8601 time of its last restore, if any. */
  restoredAt: string | null;
}

/** A turn lease as META shows it. Whether it still holds is the reader's to judge, on its own clock. */
export interface HeldLease {
  leaseId: string;
  /** Epoch milliseconds: it lapses then unless its holder renews it. */
  expiresAt: number;
  /** Epoch milliseconds it was taken at; null for a lease taken before this was recorded. */
  startedAt: number | null;
  /** The session's entry count when it was taken: the running turn's first entry has this index. Null as for `startedAt`. */
  firstEntry: number | null;
  /** Whether a stop was asked of this lease's holder (`requestTurnStop`). */
  stopRequested: boolean;
}

/** An archive object of a session: its JSONL, byte for byte what an export holds. */
export interface ArchiveObject {
  bucket: string;
  key: string;
  bytes: number;
  sha256: string;
  /** The entries it holds, and the newest one's id (null for a session with none). */
  entryCount: number;
  head: string | null;
}

type Item = Record<string, AttributeValue>;

/** Readers of a META item's attributes (or of its index item's), failing with `SessionCorruptError` that names `source` and `what`. */
function metaReader(item: Item, source: string, what: string) {
  const fail = (reason: string): never => {
    throw new SessionCorruptError(source, 1, `${what}: ${reason}`);
  };
  const pk = item[ATTR.pk]?.S;
  if (pk === undefined || !pk.startsWith(SESSION_PK_PREFIX) || item[ATTR.sk]?.S !== META_SK) fail('not a META item');
  const required = (name: string): string => item[name]?.S ?? fail(`no ${name}`);
  const optional = (name: string): string | null => {
    const value = item[name];
    if (value === undefined || value.NULL === true) return null;
    return value.S ?? fail(`${name} is not a string`);
  };
  const number = (name: string): number | null => {
    const raw = item[name]?.N;
    if (raw === undefined) return null;
    const value = Number(raw);
    return Number.isFinite(value) ? value : fail(`${name} is not a number`);
  };
  return { id: pk!.slice(SESSION_PK_PREFIX.length), fail, required, optional, number };
}

/** The session's metadata of `read`'s item, its log's count and head read from the attributes `log` names. */
function metadataOf(read: ReturnType<typeof metaReader>, item: Item, log: { count: string; head: string }): SessionMetadata {
  const provider = read.optional(ATTR.activeProvider);
  const model = read.optional(ATTR.activeModel);
  return {
    id: read.id,
    owner: read.required(ATTR.owner),
    createdAt: read.required(ATTR.createdAt),
    updatedAt: read.required(ATTR.updatedAt),
    entryCount: read.number(log.count) ?? read.fail(`no ${log.count}`),
    head: read.optional(log.head),
    activeModel: provider !== null && model !== null ? { provider, model } : null,
    title: read.optional(ATTR.title),
    archived: item[ATTR.archivedAt] !== undefined,
  };
}

/**
 * The metadata a session list shows, from a `byOwner` index item: its log as the index holds
 * it (`listed_count`, `listed_head`). `SessionCorruptError` naming `source` when malformed.
 */
export function decodeListedMetadata(item: Item, source: string): SessionMetadata {
  const read = metaReader(item, source, 'META index item');
  const metadata = metadataOf(read, item, { count: ATTR.listedCount, head: ATTR.listedHead });
  if (!Number.isSafeInteger(metadata.entryCount) || metadata.entryCount < 0) read.fail(`${ATTR.listedCount} is not a count`);
  return metadata;
}

/** Decodes a META item; `source` names it in a `SessionCorruptError` when it is malformed. */
export function decodeMeta(item: Item, source: string): MetaRecord {
  const read = metaReader(item, source, 'META item');
  const { fail, required, optional, number } = read;
  return {
    metadata: metadataOf(read, item, { count: ATTR.entryCount, head: ATTR.head }),
    header: required(ATTR.header),
    nextParent: optional(ATTR.nextParent),
    ttlSeconds: number(ATTR.ttlSeconds),
    expiresAt: number(ATTR.expiresAt),
    deletedAt: optional(ATTR.deletedAt),
    incarnation: optional(ATTR.incarnation),
    lease: leaseOf(
      optional(ATTR.leaseId),
      number(ATTR.leaseExpiresAt),
      number(ATTR.leaseStartedAt),
      number(ATTR.leaseEntryCount),
      optional(ATTR.stopRequested),
    ),
    ...archiveStateOf(item, optional, number, fail),
  };
}

function leaseOf(
  leaseId: string | null,
  expiresAt: number | null,
  startedAt: number | null,
  firstEntry: number | null,
  stopRequested: string | null,
): HeldLease | null {
  if (leaseId === null || expiresAt === null) return null;
  return { leaseId, expiresAt, startedAt, firstEntry, stopRequested: stopRequested === leaseId };
}

type ArchiveState = Pick<MetaRecord, 'archive' | 'archivedAt' | 'archiveClaim' | 'activityIndexed' | 'restoredAt'>;

function archiveStateOf(
  item: Item,
  optional: (name: string) => string | null,
  number: (name: string) => number | null,
  fail: (reason: string) => never,
): ArchiveState {
  const key = optional(ATTR.archiveKey);
  const archive: ArchiveObject | null =
    key === null
      ? null
      : {
          bucket: optional(ATTR.archiveBucket) ?? fail(`no ${ATTR.archiveBucket}`),
          key,
          bytes: number(ATTR.archiveBytes) ?? fail(`no ${ATTR.archiveBytes}`),
          sha256: optional(ATTR.archiveSha256) ?? fail(`no ${ATTR.archiveSha256}`),
          entryCount: number(ATTR.archiveEntryCount) ?? fail(`no ${ATTR.archiveEntryCount}`),
          head: optional(ATTR.archiveHead),
        };
  const archivedAt = optional(ATTR.archivedAt);
  if (archivedAt !== null && archive === null) fail(`${ATTR.archivedAt} without ${ATTR.archiveKey}`);
  const claimId = optional(ATTR.archiveClaimId);
  const claimExpiresAt = number(ATTR.archiveClaimExpiresAt);
  return {
    archive,
    archivedAt,
    archiveClaim: claimId === null || claimExpiresAt === null ? null : { claimId, expiresAt: claimExpiresAt },
    activityIndexed: item[ATTR.gsi2pk] !== undefined,
    restoredAt: optional(ATTR.restoredAt),
  };
}

/** When the session was last active: its last write, or its last restore if that came later. */
export function lastActivity(meta: Pick<MetaRecord, 'metadata' | 'restoredAt'>): string {
  const { updatedAt } = meta.metadata;
  return meta.restoredAt !== null && meta.restoredAt > updatedAt ? meta.restoredAt : updatedAt;
}

/** A META item as first written (by create, or by an import or fork once its entries are in). */
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
    [ATTR.listedCount]: { N: String(meta.entryCount ?? 0) },
    [ATTR.header]: { S: meta.header },
    [ATTR.gsi1pk]: { S: ownerPk(meta.owner) },
    [ATTR.gsi1sk]: { S: ownerSk(meta.updatedAt, meta.id) },
    [ATTR.gsi2pk]: { S: activityPk(meta.id) },
    [ATTR.gsi2sk]: { S: activitySk(meta.updatedAt, meta.id) },
    [ATTR.incarnation]: { S: meta.incarnation },
  };
  if (meta.head != null) {
    item[ATTR.head] = { S: meta.head };
    item[ATTR.listedHead] = { S: meta.head };
  }
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

/** Epoch seconds a session with a TTL of `ttlSeconds` expires at, written at `now`; null for one that never expires. */
export function expiryOf(ttlSeconds: number | null, now: Date): number | null {
  return ttlSeconds === null ? null : Math.floor(now.getTime() / 1000) + ttlSeconds;
}

/**
 * Writes a new session's META item, only if the id is free (`CREATE_CONDITION`):
 * `SessionExistsError` when a session — of any owner, or a tombstone — has it.
 */
export async function putNewMeta(client: DynamoDBClient, tableName: string, sessionId: string, item: Record<string, AttributeValue>): Promise<void> {
  try {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: item,
        ConditionExpression: CREATE_CONDITION,
        ExpressionAttributeNames: namesFor(CREATE_CONDITION),
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new SessionExistsError(sessionId, { cause: error });
    throw error;
  }
}

/** Names a session's META item in errors: `dynamodb:<table>/SESSION#<id>/META`. */
export function metaSource(tableName: string, sessionId: string): string {
  return itemSource(tableName, sessionPk(sessionId), META_SK);
}

/** The session's META item as stored, consistently read (one GetItem), or undefined when there is none. */
export async function getMetaItem(client: DynamoDBClient, tableName: string, sessionId: string): Promise<Item | undefined> {
  const { Item: item } = await client.send(new GetItemCommand({ TableName: tableName, Key: metaKey(sessionId), ConsistentRead: true }));
  return item;
}

/** The session's META, consistently read and decoded, or null when there is none. */
export async function readMeta(client: DynamoDBClient, tableName: string, sessionId: string): Promise<MetaRecord | null> {
  const item = await getMetaItem(client, tableName, sessionId);
  return item === undefined ? null : decodeMeta(item, metaSource(tableName, sessionId));
}
