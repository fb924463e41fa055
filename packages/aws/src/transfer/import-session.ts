/**
 * Import: a JSONL session (an export, or an `FSJSONLStore` file) from S3, a local file or
 * bytes in memory into a new DynamoStore session, streamed line by line, keeping entry ids.
 */
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { ID_RULE, InvalidSessionIdError, newId, systemClock, type SessionHeader } from '@panto/core/store-kit';
import type { S3Location } from '../entries/offload.js';
import { SessionExistsError } from '../errors.js';
import { writeSession } from '../jsonl/write-session.js';
import { readMeta } from '../meta/meta-item.js';
import { DynamoStore } from '../store/dynamo-store.js';
import type { SessionCache } from '../store/session-cache.js';
import { assertValidOwner, assertValidTtl, isValidSessionId } from '../table/validation.js';

export interface ImportSessionOptions {
  dynamo: DynamoDBClient;
  tableName: string;
  owner: string;
  /** Reads an S3 source, and takes lines too big for a DynamoDB item (required for those). */
  s3?: S3Location;
  /**
   * The log: an S3 object, a file, or bytes in memory (e.g. a request body; `name` is what a
   * `SessionCorruptError` calls it, default `body`).
   */
  source: { bucket: string; key: string } | { file: string } | { body: Uint8Array | string; name?: string };
  /** The new session's id (default: a UUIDv7 from `ids`). */
  sessionId?: string;
  /**
   * Keep the id the log's header names, unless a session (of any owner, or one being
   * deleted) has it — then a new one, as without this. Ignored when `sessionId` is given.
   */
  keepSessionId?: boolean;
  /** Called once with the log's header, as read, before anything is written (e.g. to report the id it had). Must not throw. */
  onHeader?: (header: SessionHeader) => void;
  /** As for `DynamoStore.create`. */
  ttlSeconds?: number;
  clock?: () => Date;
  ids?: () => string;
  /** As for `DynamoStore.open`: the handle returned uses it. */
  cache?: SessionCache;
}

/**
 * Imports a session log as a new session of `owner`, keeping every entry (ids, parents,
 * timestamps, bytes of each line) and the header's version, creation time and cwd; the
 * session gets a new id (or, with `keepSessionId`, keeps its own when it is free). Entry
 * items are written first and the META item last, so the session becomes visible (to
 * `open`, `listOwnerSessions`) only once it is whole. A corrupt line — not JSON, not an
 * entry, an id that is not an id, bytes that are not UTF-8 — fails the import with
 * `SessionCorruptError` naming the source and line, and whatever was written is removed
 * again. As when a file is opened, a torn last line and a last batch a crash cut short are
 * left out.
 *
 * @example
 * const store = await importSession({ dynamo, tableName, owner, s3, source: { file: 'session.jsonl' } });
 */
export async function importSession(options: ImportSessionOptions): Promise<DynamoStore> {
  const { dynamo, tableName, owner, s3 } = options;
  assertValidOwner(owner);
  const ids = options.ids ?? newId;
  if (options.sessionId !== undefined && !isValidSessionId(options.sessionId)) {
    throw new InvalidSessionIdError(options.sessionId, `use ${ID_RULE}`);
  }
  assertValidTtl(options.ttlSeconds);
  const clock = options.clock ?? systemClock;
  const write = async (chooseId: (header: SessionHeader) => string | Promise<string>): Promise<string> => {
    const { name, stream } = await openSource(options);
    const sessionId = (header: SessionHeader): string | Promise<string> => {
      options.onHeader?.(header);
      return chooseId(header);
    };
    return writeSession({
      dynamo,
      tableName,
      owner,
      s3,
      source: name,
      stream,
      sessionId,
      // Nothing is stored that a read could not take back: a too-deep line, a bad time, is refused by number.
      rules: 'incoming',
      ttlSeconds: options.ttlSeconds ?? null,
      now: clock(),
    });
  };
  let id: string;
  if (options.sessionId !== undefined) {
    const given = options.sessionId;
    id = await write(() => given);
  } else if (options.keepSessionId === true) {
    // The header's id if it is free. A session that has it (of any owner, or a tombstone) is
    // seen before anything is written: entry puts are conditioned on each item being absent,
    // not on the session, so puts past a shorter session's end would land in its partition
    // (and, if their clean-up failed, block its next append for good). Two imports of the same
    // log racing each other are still caught by the writes themselves, which remove what they
    // wrote before the collision.
    id = await write(async (header) => ((await sessionTaken(dynamo, tableName, header.id)) ? ids() : header.id)).catch((error: unknown) => {
      if (!(error instanceof SessionExistsError)) throw error;
      const fresh = ids();
      return write(() => fresh);
    });
  } else {
    const fresh = ids();
    id = await write(() => fresh);
  }
  return DynamoStore.open({
    client: dynamo,
    tableName,
    sessionId: id,
    owner,
    ...(s3 === undefined ? {} : { s3 }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.cache === undefined ? {} : { cache: options.cache }),
  });
}

/** Whether a session (of any owner, a tombstone included) has the id: its META item exists. An id that cannot be one is taken by nobody. */
async function sessionTaken(dynamo: DynamoDBClient, tableName: string, sessionId: string): Promise<boolean> {
  return isValidSessionId(sessionId) && (await readMeta(dynamo, tableName, sessionId)) !== null;
}

async function openSource(
  options: ImportSessionOptions,
): Promise<{ name: string; stream: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string> }> {
  const { source } = options;
  if ('body' in source) return { name: source.name ?? 'body', stream: [source.body] };
  if ('file' in source) {
    const path = resolve(source.file);
    return { name: path, stream: createReadStream(path) };
  }
  if (options.s3 === undefined) throw new TypeError('importing from S3 needs the `s3` option (its client reads the source)');
  const response = await options.s3.client.send(new GetObjectCommand({ Bucket: source.bucket, Key: source.key }));
  return { name: `s3://${source.bucket}/${source.key}`, stream: (response.Body ?? []) as AsyncIterable<Uint8Array> };
}
