/**
 * The branches of the open chat: the tree and log (use-session-log.ts, read with the session
 * whenever it changes); switching between versions of a prompt (`PUT …/leaf` to where that
 * branch was last used); editing a prompt (a turn sent with `parent_id`); the prompts that
 * failed before one; the Branches dialog; and what each compaction replaced, read from the log
 * when asked for.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { SessionTree, StoredMessage, TreeLeaf } from '../api/wire.js';
import {
  branchLeaves,
  type EntryIndex,
  type FailedPrompt,
  failedBefore,
  latestOf,
  type PromptVersions,
  promptVersions,
  replacedBy,
  unansweredPrompts,
} from '../branches.js';
import type { Edit } from './turn-runner.js';
import type { OpenSession } from './use-session.js';
import type { SessionLog } from './use-session-log.js';

/** What the transcript lets a prompt do. */
export interface PromptControls {
  /** The other versions of the prompt `id`, when it has some (and the log has been read). */
  versions(id: string): PromptVersions | null;
  /** The prompts that failed just before prompt `id` and were gone on from (once the log has been read). */
  failedBefore(id: string): FailedPrompt[];
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
  /** The session's tree and log, which the session's reads keep current. */
  log: SessionLog;
  /** A turn runs: nothing may switch or edit now. */
  running: boolean;
  /** Sets the chat's notice line; null clears it. Must not throw. */
  say(notice: string | null): void;
  /** Sends a turn (use-turn.ts). */
  send(text: string, edit?: Edit): void;
}

export interface Branches {
  tree: SessionTree | null;
  /** The branches (the tree's leaves but failed prompts); empty until the tree is read. */
  leaves: TreeLeaf[];
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

export function useBranches({ api, sessionId, session, log, running, say, send }: BranchesOptions): Branches {
  const { contents, show } = session;
  const [switching, setSwitching] = useState(false);
  const [dialog, setDialog] = useState(false);
  const [shown, setShown] = useState<ReadonlyMap<string, readonly StoredMessage[]>>(new Map());
  const [loading, setLoading] = useState<string | null>(null);

  const open = async (entryId: string): Promise<void> => {
    if (switching) return;
    setSwitching(true);
    say(null);
    try {
      await show(await api.switchLeaf(sessionId, entryId));
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

  const unanswered = unansweredPrompts(tree);
  return {
    tree,
    leaves: tree === null ? [] : branchLeaves(tree),
    index,
    controls: {
      versions: (id) => (index === null ? null : promptVersions(index, id, unanswered)),
      failedBefore: (id) => (index === null ? [] : failedBefore(index, id, unanswered)),
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
