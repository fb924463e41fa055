/**
 * The session's branches (`GET /sessions/{id}/tree`): each leaf with a preview of where it
 * ends and when it was last used, the active one marked. Choosing one switches to it
 * (`PUT …/leaf`); each can also be forked into a new session.
 */
import type { SessionTree, TreeLeaf } from '../api/wire.js';
import { type EntryIndex, lastUsed, promptBefore } from '../branches.js';
import { ageText } from '../format.js';
import { plainText } from '../plain-text.js';
import { Modal } from './modal.js';

export interface BranchesDialogProps {
  tree: SessionTree;
  /** The branches: the tree's leaves but the prompts that failed (use-branches.ts). */
  leaves: readonly TreeLeaf[];
  /** The log, when it has been read: a switch back to a branch counts as its last use. */
  index: EntryIndex | null;
  now: number;
  /** A switch or a fork runs: the others wait. */
  busy: boolean;
  onOpen(leafId: string): void;
  onFork(leafId: string): void;
  onClose(): void;
}

export function BranchesDialog({ tree, leaves: branches, index, now, busy, onOpen, onFork, onClose }: BranchesDialogProps) {
  // Most recently used first, as a chat app lists conversations.
  const leaves = branches
    .map((leaf) => ({ ...leaf, used: index === null ? leaf.timestamp : lastUsed(index, leaf.id, leaf.timestamp) }))
    .sort((a, b) => (a.used < b.used ? 1 : a.used > b.used ? -1 : 0));
  return (
    <Modal labelledBy="branches-title" class="branches" onClose={onClose}>
      <h2 id="branches-title">Branches</h2>
      <p class="hint">Each branch is the conversation up to where it ends. Open one to continue it; the others stay.</p>
      <ul class="branch-list">
        {leaves.map((leaf) => {
          const active = leaf.id === tree.active_leaf;
          const prompt = index === null ? undefined : promptBefore(index, leaf.id);
          return (
            <li key={leaf.id} class={active ? 'active' : undefined}>
              <button type="button" class="branch" aria-current={active ? 'true' : undefined} disabled={busy} onClick={() => onOpen(leaf.id)}>
                {prompt !== undefined && prompt !== leaf.preview && <span class="branch-prompt">“{plainText(prompt).slice(0, 80)}”</span>}
                <span class="branch-preview">{plainText(leaf.preview) || '(empty)'}</span>
                <span class="branch-meta">
                  {active ? 'shown now · ' : ''}last used {ageText(leaf.used, now)}
                </span>
              </button>
              <button type="button" class="fork-branch" aria-label="Fork this branch" disabled={busy} onClick={() => onFork(leaf.id)}>
                Fork
              </button>
            </li>
          );
        })}
      </ul>
      <div class="form-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}
