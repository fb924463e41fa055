/** Starting a new, empty session: its META item, put only if the id is free. */
import { randomUUID } from 'node:crypto';
import { ID_RULE, InvalidSessionIdError, newId, SESSION_FORMAT_VERSION, systemClock, encodeHeader } from '@panto/core/store-kit';
import { decodeMeta, expiryOf, metaItem, metaSource, putNewMeta, type MetaRecord } from '../../meta/meta-item.js';
import { assertValidOwner, assertValidTtl, isValidSessionId } from '../../table/validation.js';
import { handleOf, type Handle } from '../handle.js';
import type { DynamoStoreCreateOptions } from '../store-options.js';

/**
 * Writes the META item of a new session (`SessionExistsError` if its id is taken) and
 * returns the handle on it and META as written.
 */
export async function createSession(options: DynamoStoreCreateOptions): Promise<{ handle: Handle; meta: MetaRecord }> {
  assertValidOwner(options.owner);
  const id = options.sessionId ?? (options.ids ?? newId)();
  if (!isValidSessionId(id)) {
    throw new InvalidSessionIdError(id, `use ${ID_RULE}`);
  }
  assertValidTtl(options.ttlSeconds);
  const now = (options.clock ?? systemClock)();
  const createdAt = now.toISOString();
  const ttlSeconds = options.ttlSeconds ?? null;
  const item = metaItem({
    id,
    owner: options.owner,
    createdAt,
    updatedAt: createdAt,
    header: sessionHeader(id, createdAt, options.cwd),
    ttlSeconds,
    expiresAt: expiryOf(ttlSeconds, now),
    activeModel: options.activeModel === undefined ? null : { ...options.activeModel },
    incarnation: randomUUID(),
  });
  await putNewMeta(options.client, options.tableName, id, item);
  return { handle: handleOf(options), meta: decodeMeta(item, metaSource(options.tableName, id)) };
}

/** The JSONL header line of a session panto starts (a create, a fork), in today's format. */
export function sessionHeader(id: string, timestamp: string, cwd: string | undefined): string {
  return encodeHeader({
    type: 'session',
    version: SESSION_FORMAT_VERSION,
    id,
    timestamp,
    ...(cwd === undefined ? {} : { cwd }),
  });
}
