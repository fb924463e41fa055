/**
 * Changing what a session's META item says of it without touching its log: its title, and
 * the model its next turns use.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SessionNotFoundError, systemClock, type ActiveModel } from '@panto/core/store-kit';
import type { SessionMetadata } from '../meta/meta-item.js';
import { updateMeta } from '../meta/update-meta.js';
import { SESSION_UPDATE_CONDITION, SESSION_UPDATE_MODEL, SESSION_UPDATE_TITLE } from '../table/expressions.js';
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
  /** Tells the time for the expiry check (default: the system clock). */
  clock?: () => Date;
}

/**
 * Renames a session and/or sets its model: one conditional UpdateItem on META, returning the
 * metadata as it now is. A missing, another owner's, expired or deleted session is
 * `SessionNotFoundError`. Does not take the turn lease: a caller that must not change the
 * model under a running turn holds the lease around it (the HTTP service does).
 *
 * @example
 * await updateSession({ client, tableName, owner, sessionId, title: 'Refactor the parser' });
 */
export async function updateSession(options: UpdateSessionOptions): Promise<SessionMetadata> {
  const { client, tableName, owner, sessionId } = options;
  assertValidOwner(owner);
  if (!isValidSessionId(sessionId)) throw new SessionNotFoundError(String(sessionId));
  const parts: string[] = [];
  const values: Record<string, AttributeValue> = {
    ':owner': { S: owner },
    ':now_seconds': { N: String(Math.floor((options.clock ?? systemClock)().getTime() / 1000)) },
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
  const meta = await updateMeta({
    client,
    tableName,
    sessionId,
    update: `SET ${parts.join(', ')}`,
    condition: SESSION_UPDATE_CONDITION,
    values,
    refused: (_old, cause) => new SessionNotFoundError(sessionId, { cause }),
  });
  return meta.metadata;
}
