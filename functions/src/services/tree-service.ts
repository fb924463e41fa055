/** A session's tree: the whole log page by page, the tree of branches, and switching the active leaf. */
import { type SessionEntry, type SessionTree, acceptsPrompt } from '@panto/core/agent-kit';
import { asEntryField, invalidField } from '../errors.js';
import { contentsOf, openStore, type RunningTurn, runningTurn, type SessionContents, type SessionContext } from './session-context.js';
import { withSessionLock } from './session-lock.js';

/** A page of a session's log. */
export interface EntriesPage {
  entries: SessionEntry[];
  /** The id of the page's last entry, to pass as `cursor`; null on the last page. */
  nextCursor: string | null;
}

/** The most JSON one page of entries holds (a page has at least one entry, whatever its size). */
export const ENTRIES_PAGE_BYTES = 1024 * 1024;

export type TreeService = ReturnType<typeof treeService>;

export function treeService(context: SessionContext) {
  return {
    /** The whole tree of the session, every branch. */
    async tree(owner: string, sessionId: string): Promise<SessionTree> {
      return (await openStore(context, owner, sessionId)).loadTree();
    },

    /** The whole tree and the turn running on the session (its lease), from one read: what an A2A task is read from. */
    async treeAndTurn(owner: string, sessionId: string): Promise<{ tree: SessionTree; turn: RunningTurn | null }> {
      const store = await openStore(context, owner, sessionId);
      return { tree: await store.loadTree(), turn: runningTurn(store.heldLease()) };
    },

    /**
     * The whole tree, and the log index of the entry that opened the running turn (its
     * prompt, or the decisions that resumed it); null when no turn runs. What `GET /chat/{id}`
     * shows: the conversation up to the running turn, whose answer its stream replays.
     */
    async chat(owner: string, sessionId: string): Promise<{ tree: SessionTree; runningFrom: number | null }> {
      const store = await openStore(context, owner, sessionId);
      const tree = await store.loadTree();
      return { tree, runningFrom: store.heldLease()?.firstEntry ?? null };
    },

    /**
     * A page of the log in order — every branch, leaf entries and what compactions replaced —
     * after the entry `cursor` names: at most `limit` entries and about
     * {@link ENTRIES_PAGE_BYTES} of JSON. A cursor that is not an entry of the session is a 400.
     */
    async entries(owner: string, sessionId: string, page: { cursor?: string; limit: number }): Promise<EntriesPage> {
      const all = (await (await openStore(context, owner, sessionId)).loadTree()).entries;
      let start = 0;
      if (page.cursor !== undefined) {
        const at = all.findIndex((entry) => entry.id === page.cursor);
        if (at === -1) throw invalidField('query', 'cursor', 'not a cursor this API returned');
        start = at + 1;
      }
      const entries: SessionEntry[] = [];
      let bytes = 0;
      for (let i = start; i < all.length && entries.length < page.limit; i++) {
        const size = Buffer.byteLength(JSON.stringify(all[i]));
        if (entries.length > 0 && bytes + size > ENTRIES_PAGE_BYTES) break;
        entries.push(all[i]!);
        bytes += size;
      }
      const last = entries.at(-1);
      return { entries, nextCursor: last !== undefined && start + entries.length < all.length ? last.id : null };
    },

    /**
     * Makes `entryId` the active leaf, holding the lease like a turn (409 while one runs), and
     * returns the session as it now reads.
     */
    async switchLeaf(owner: string, sessionId: string, entryId: string): Promise<SessionContents> {
      return withSessionLock(context, owner, sessionId, async ({ store }) => {
        checkSwitch(await store.loadTree(), entryId);
        const loaded = await store.switchLeaf(entryId).catch(asEntryField('entry_id'));
        // The lease the store shows is this switch's own, released before the answer: no turn runs.
        return { ...contentsOf(context, store, loaded), turn: null };
      });
    },
  };
}

/**
 * Refuses (400 naming `entry_id`) an entry in the middle of a turn: a tool call whose
 * result is stored, or a result the turn went on from. Continuing there would show the
 * model a synthesized "interrupted" result for a tool that returned. A turn's end (an
 * entry nothing follows, or one a prompt already follows), a point a prompt can follow,
 * a prompt (it comes back as `dangling_user`), and the entry already active (a no-op) are
 * fine. An unknown id is left to the switch (400 too).
 */
function checkSwitch(tree: SessionTree, entryId: string): void {
  if (tree.get(entryId) === undefined) return;
  const entry = tree.resolve(entryId);
  const next = tree.children(entry.id);
  const isPrompt = (candidate: SessionEntry): boolean => candidate.type === 'message' && candidate.message.role === 'user';
  if (entry.id === tree.activeLeaf || next.length === 0 || isPrompt(entry) || acceptsPrompt(entry) || next.some(isPrompt)) return;
  throw invalidField(
    'body',
    'entry_id',
    'the session cannot continue from the middle of a turn: use the end of a turn (an entry of `leaves`, an answer), a prompt, a system message or a compaction',
  );
}
