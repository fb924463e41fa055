/**
 * The branches of the open chat: the tree and log (use-session-log.ts), read again whenever
 * the session changes; switching between versions of a prompt (`PUT …/leaf` to where that
 * branch was last used); editing a prompt (a turn sent with `parent_id`); the Branches
 * dialog; and what each compaction replaced, read from the log when asked for.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { SessionTree, StoredMessage } from '../api/wire.js';
import { type EntryIndex, latestOf, type PromptVersions, promptVersions, replacedBy } from '../branches.js';
import type { Edit } from './turn-runner.js';
import { useLatest } from './use-latest.js';
import type { OpenSession } from './use-session.js';
import { useSessionLog } from './use-session-log.js';

/** What the transcript lets a prompt do. */
export interface PromptControls {
  /** The other versions of the prompt `id`, when it has some (and the log has been read). */
  versions(id: string): PromptVersions | null;
  /** A turn runs, or a switch is under way: no edit and no switch now. */
  busy: boolean;
  /** Sends `text` as a new version of the prompt `promptId` (when it has one), following `parentId`. */
  onEdit(text: string, at: { promptId: string | undefined; parentId: string | null }): void;
  /** Shows the branch of version `versionId`. */
  onSwitch(versionId: string): void;
}

/** What each compaction replaced, read from the log once asked for. */
export interface EarlierMessages {
  /** Compaction id → the messages before it. */
  shown: ReadonlyMap<string, readonly StoredMessage[]>;
  /** The compaction whose earlier messages are being read. */
  loading: string | null;
  toggle(compactionId: string): void;
}

export interface BranchesOptions {
  api: Api;
  sessionId: string;
  session: OpenSession;
  /** A turn runs: nothing may switch or edit now. */
  running: boolean;
  /** Sets the chat's notice line; null clears it. Must not throw. */
  say(notice: string | null): void;
  /** Sends a turn (use-turn.ts). */
  send(text: string, edit?: Edit): void;
}

export interface Branches {
  tree: SessionTree | null;
  index: EntryIndex | null;
  controls: PromptControls;
  earlier: EarlierMessages;
  /** The id of the unanswered prompt, when the session ends in one. */
  danglingId: string | undefined;
  /** A switch of branch is under way. */
  switching: boolean;
  /** Shows the session continuing from `entryId` (a leaf of the Branches dialog). */
  open(entryId: string): Promise<void>;
  dialog: boolean;
  setDialog(open: boolean): void;
}

export function useBranches({ api, sessionId, session, running, say, send }: BranchesOptions): Branches {
  const { contents, show } = session;
  const log = useSessionLog(api, sessionId, say);
  const [switching, setSwitching] = useState(false);
  const [dialog, setDialog] = useState(false);
  const [shown, setShown] = useState<ReadonlyMap<string, readonly StoredMessage[]>>(new Map());
  const [loading, setLoading] = useState<string | null>(null);

  // The tree changes with every entry written (a turn, a switch, a compaction): read it again once none runs.
  const settledCount = contents === null || contents.turn !== null ? null : contents.entry_count;
  const refresh = useLatest(log.refresh);
  useEffect(() => {
    if (settledCount !== null) void refresh.current();
  }, [settledCount, refresh]);

  const open = async (entryId: string): Promise<void> => {
    if (switching) return;
    setSwitching(true);
    say(null);
    try {
      show(await api.switchLeaf(sessionId, entryId));
    } catch (error) {
      say(describeFailure(error));
    } finally {
      setSwitching(false);
    }
  };

  const toggle = async (compactionId: string): Promise<void> => {
    if (shown.has(compactionId)) {
      setShown((current) => new Map([...current].filter(([id]) => id !== compactionId)));
      return;
    }
    setLoading(compactionId);
    const index = await log.loadEntries();
    setLoading(null);
    if (index !== null) setShown((current) => new Map(current).set(compactionId, replacedBy(index, compactionId)));
  };

  const { tree, index } = log;
  const activeEntry = tree?.active_leaf === null || tree === null ? undefined : index?.byId.get(tree.active_leaf)?.entry;
  const danglingId =
    contents?.dangling_user && tree?.active_leaf && (activeEntry === undefined || (activeEntry.type === 'message' && activeEntry.message.role === 'user'))
      ? tree.active_leaf
      : undefined;

  return {
    tree,
    index,
    controls: {
      versions: (id) => (index === null ? null : promptVersions(index, id)),
      busy: running || switching,
      onEdit: (text, at) => send(text, { parentId: at.parentId, replaces: at.promptId }),
      onSwitch: (versionId) => void open(index === null ? versionId : latestOf(index, versionId)),
    },
    earlier: { shown, loading, toggle: (id) => void toggle(id) },
    danglingId,
    switching,
    open,
    dialog,
    setDialog,
  };
}
