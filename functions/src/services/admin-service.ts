/** A session's life: create, list, read, change (its title, its model) and delete it; and whether the table answers. */
import {
  deleteSession,
  DynamoStore,
  getPartial,
  listOwnerSessions,
  partialOfRunning,
  pingTable,
  type TablePing,
  titleOf,
  updateSession,
} from '@panto/aws/service';
import { Agent, type Provider } from '@panto/core/agent-kit';
import {
  contentsOf,
  leaseClock,
  openStore,
  type SessionContents,
  type SessionContext,
  type SessionSummary,
  storeBucket,
  storeTtl,
  summaryOf,
} from './session-context.js';
import { withSessionLock } from './session-lock.js';

/** What a change of a session (`PATCH`) asks for; nothing given, nothing changes. */
export interface SessionChange {
  title?: string;
  provider?: string;
  model?: string;
}

export type AdminService = ReturnType<typeof adminService>;

export function adminService(context: SessionContext) {
  const { dynamo, tableName } = context;
  return {
    /**
     * Creates a session for `provider`; `system` becomes its first entry. When `chosen`, the
     * session keeps `provider`'s model even if the server's default changes.
     */
    async create(owner: string, options: { provider: Provider; chosen: boolean; system?: string }): Promise<SessionSummary> {
      const { provider } = options;
      const store = await DynamoStore.create({
        client: dynamo,
        tableName,
        owner,
        ...storeBucket(context),
        cache: context.cache,
        ...storeTtl(context),
        ...(options.chosen ? { activeModel: { provider: provider.name, model: provider.model } } : {}),
      });
      if (options.system !== undefined) {
        await new Agent({ provider }, { store }).addSystemMessage(options.system, 'replace');
      }
      return summaryOf(context, store.metadata());
    },

    /** Whether the table answers a read within `timeoutMs` (see `pingTable`). Never rejects. */
    async ping(timeoutMs: number): Promise<TablePing> {
      return pingTable({ client: dynamo, tableName, timeoutMs });
    },

    async list(owner: string, page: { limit?: number; cursor?: string }): Promise<{ sessions: SessionSummary[]; nextCursor: string | null }> {
      const { sessions, nextCursor } = await listOwnerSessions({
        client: dynamo,
        tableName,
        owner,
        ...(page.limit === undefined ? {} : { limit: page.limit }),
        ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
      });
      return { sessions: sessions.map((metadata) => summaryOf(context, metadata)), nextCursor };
    },

    /** The session as stored; while a turn runs, with the answer it has produced so far (one GetItem more, only then). */
    async read(owner: string, sessionId: string): Promise<SessionContents> {
      const store = await openStore(context, owner, sessionId);
      const loaded = await store.loadConversation();
      const held = store.heldLease();
      const partial = held === null ? null : (store.partialAnswer() ?? (await getPartial(context.dynamo, context.tableName, sessionId)));
      return contentsOf(context, store, loaded, partialOfRunning(partial, held, leaseClock(context).now()));
    },

    /**
     * Renames the session and/or changes the model its next turns use. A model change is
     * checked as at creation (an unknown provider 400, one without a key 422) and holds the
     * lease (409 while a turn runs), so a running turn is never changed under it.
     */
    async update(owner: string, sessionId: string, change: SessionChange): Promise<SessionSummary> {
      return changeSession(context, owner, sessionId, change);
    },

    /**
     * Deletes the session with everything of it: entries, offloaded messages, exports and archives. A
     * session whose earlier delete did not finish (a tombstone) is finished, not refused.
     */
    async delete(owner: string, sessionId: string): Promise<void> {
      await deleteSession({ client: dynamo, tableName, owner, sessionId, ...storeBucket(context), exports: { client: context.s3, bucket: context.bucket } });
    },
  };
}

/** `AdminService.update`. */
async function changeSession(context: SessionContext, owner: string, sessionId: string, change: SessionChange): Promise<SessionSummary> {
  const { dynamo, tableName } = context;
  const title = change.title === undefined ? undefined : (titleOf(change.title) ?? undefined);
  const titled = title === undefined ? {} : { title };
  if (change.provider === undefined && change.model === undefined) {
    if (title === undefined) return summaryOf(context, (await openStore(context, owner, sessionId)).metadata());
    return summaryOf(context, await updateSession({ client: dynamo, tableName, owner, sessionId, ...titled }));
  }
  const model = change.model === undefined ? {} : { model: change.model };
  // A named provider is checked before anything else; a model alone needs the session's provider.
  if (change.provider !== undefined) context.providers({ provider: change.provider, ...model }, { check: true });
  return withSessionLock(context, owner, sessionId, async ({ store }) => {
    const provider = context.providers({ provider: change.provider ?? (store.activeModel() ?? context.defaultModel()).provider, ...model }, { check: true });
    const activeModel = { provider: provider.name, model: provider.model };
    const updated = await updateSession({ client: dynamo, tableName, owner, sessionId, ...titled, activeModel });
    // What this process cached of META names the old model: the next turn reads it again (one
    // in another process finds out from its first write's condition).
    context.cache.forgetMeta(sessionId);
    return summaryOf(context, updated);
  });
}
