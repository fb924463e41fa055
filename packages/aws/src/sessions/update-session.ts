/**
 * Changing what a session's META item says of it without touching its log: its title, and
 * the model its next turns use.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError, systemClock, type ActiveModel } from '@panto/core/store-kit';
import { decodeMeta, metaSource, type SessionMetadata } from '../meta/meta-item.js';
import { updateMeta } from '../meta/update-meta.js';
import { isVisibleTo } from '../meta/visibility.js';
import { SESSION_UPDATE_CONDITION, SESSION_UPDATE_IF_TITLE, SESSION_UPDATE_MODEL, SESSION_UPDATE_TITLE } from '../table/expressions.js';
import { assertValidOwner, isValidSessionId } from '../table/validation.js';

export interface UpdateSessionOptions {
  client: DynamoDBClient;
  tableName: string;
  owner: string;
  sessionId: string;
  /** The session's new title (kept as given; the caller validates it). */
  title?: string;
  /**
   * The provider and model its next turns use. Until the next write changes it again (an
   * append sets the model its batch names; a leaf switch, the switched-to path's).
   */
  activeModel?: ActiveModel;
  /**
   * Change only while the title is still this one (what a first prompt gave it): a session
   * renamed meanwhile keeps its name, and its metadata is returned as it is.
   */
  ifTitle?: string;
  /** Tells the time for the expiry check (default: the system clock). */
  clock?: () => Date;
}

/**
 * Renames a session and/or sets its model: one conditional UpdateItem on META, returning the
 * metadata as it now is (with `ifTitle`, as it is when the title was not that one). A
 * missing, another owner's, expired or deleted session is `SessionNotFoundError`. Does not
 * take the turn lease: a caller that must not change the model under a running turn holds the
 * lease around it (the HTTP service does).
 *
 * @example
 * await updateSession({ client, tableName, owner, sessionId, title: 'Refactor the parser' });
 */
export async function updateSession(options: UpdateSessionOptions): Promise<SessionMetadata> {
  const { client, tableName, owner, sessionId, ifTitle } = options;
  assertValidOwner(owner);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  const parts: string[] = [];
  const now = (options.clock ?? systemClock)();
  const values: Record<string, AttributeValue> = {
    ':owner': { S: owner },
    ':now_seconds': { N: String(Math.floor(now.getTime() / 1000)) },
  };
  if (options.title !== undefined) {
    parts.push(SESSION_UPDATE_TITLE);
    values[':title'] = { S: options.title };
  }
  if (options.activeModel !== undefined) {
    parts.push(SESSION_UPDATE_MODEL);
    values[':active_provider'] = { S: options.activeModel.provider };
    values[':active_model'] = { S: options.activeModel.model };
  }
  if (parts.length === 0) throw new TypeError('updateSession needs a title or an activeModel');
  const condition = ifTitle === undefined ? SESSION_UPDATE_CONDITION : `${SESSION_UPDATE_CONDITION}${SESSION_UPDATE_IF_TITLE}`;
  if (ifTitle !== undefined) values[':if_title'] = { S: ifTitle };
  try {
    const meta = await updateMeta({
      client,
      tableName,
      sessionId,
      update: `SET ${parts.join(', ')}`,
      condition,
      values,
      refused: (old, cause) => {
        // Only a title condition can fail on a session that is there: the old item tells which.
        const meta = ifTitle === undefined || old === undefined ? null : decodeMeta(old, metaSource(tableName, sessionId));
        return isVisibleTo(meta, owner, now.getTime()) ? new TitleKept(meta.metadata) : new SessionNotFoundError(sessionId, { cause });
      },
    });
    return meta.metadata;
  } catch (error) {
    if (error instanceof TitleKept) return error.metadata;
    throw error;
  }
}

/** Not an error for the caller: `ifTitle` was not the title (the session was renamed), and this is the session as it is. */
class TitleKept extends Error {
  constructor(readonly metadata: SessionMetadata) {
    super('the session was renamed meanwhile; its title is kept');
  }
}
