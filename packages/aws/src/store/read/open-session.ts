/** Opening a handle on an existing session: one consistent read of its META item. */
import { SessionNotFoundError } from '@panto/core/store-kit';
import type { MetaRecord } from '../../meta/meta-item.js';
import { visibleMeta } from '../../meta/visibility.js';
import { assertValidOwner, isValidSessionId } from '../../table/validation.js';
import { handleOf, restoreIfArchived, type Handle } from '../handle.js';
import type { DynamoStoreOpenOptions } from '../store-options.js';

/**
 * The handle on a session of `owner`, and its META once hot: one consistent GetItem, and a
 * restore first if the session is archived. `SessionNotFoundError` for a session the owner
 * may not see (missing, another owner's, expired, being deleted) and for a malformed id.
 */
export async function openSession(options: DynamoStoreOpenOptions): Promise<{ handle: Handle; meta: MetaRecord }> {
  assertValidOwner(options.owner);
  if (!isValidSessionId(options.sessionId)) throw new SessionNotFoundError(String(options.sessionId));
  const handle = handleOf(options);
  const read = await visibleMeta(options.client, options.tableName, options.owner, options.sessionId, handle.clock());
  return { handle, meta: await restoreIfArchived(handle, options.sessionId, read) };
}
