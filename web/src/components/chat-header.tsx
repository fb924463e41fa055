/**
 * The head of a chat: the way back, the session's title (or the box renaming it), its actions
 * (components/session-menu.tsx; Compact and Delete after a confirmation), its model
 * (changeable) and what the whole session has used.
 */
import type { ComponentChildren, RefObject } from 'preact';
import { useState } from 'preact/hooks';
import type { SessionContents, SessionTree } from '../api/wire.js';
import { usageText } from '../format.js';
import { useRenameFocus } from '../hooks/use-rename-focus.js';
import type { SessionActions } from '../hooks/use-session-actions.js';
import { ConfirmDialog } from './modal.js';
import { SessionMenu } from './session-menu.js';

export interface ChatHeaderProps {
  /** The session's title as it stands: listed, or its first prompt, or "Untitled session" — as plain text. */
  title: string;
  /** Nothing of the session to show yet (its first read, no turn of this tab's running): the title shows as "…". */
  loading: boolean;
  contents: SessionContents | null;
  gone: boolean;
  /** A turn runs: the session may not be compacted, deleted or switched to another branch. */
  running: boolean;
  actions: SessionActions;
  /** The session's tree as last read (its active leaf, what the session used); null until it is. */
  tree: SessionTree | null;
  /** How many branches it has (the tree's leaves but failed prompts). */
  branches: number;
  /** Opens the Branches dialog. */
  onBranches(): void;
  /** The model select (components/chat-model.tsx). */
  model: ComponentChildren;
  onBack(): void;
}

/** The entry the current branch ends at: what Fork copies the path to. */
function currentEntry(tree: SessionTree | null, contents: SessionContents | null): string | undefined {
  return tree?.active_leaf ?? contents?.messages.at(-1)?.id;
}

/** Whether the session holds a conversation yet (a prompt, sent or failed): something to fork or compact. */
function started(contents: SessionContents | null): boolean {
  return contents !== null && (contents.dangling_user !== null || contents.messages.some((message) => message.role !== 'system'));
}

export function ChatHeader({ title, loading, contents, gone, running, actions, tree, branches, onBranches, model, onBack }: ChatHeaderProps) {
  const { renaming, setRenaming } = actions;
  const { titleInput, renameButton } = useRenameFocus(renaming !== null);
  const [confirming, setConfirming] = useState<'compact' | 'delete' | null>(null);
  return (
    <header class="chat-header">
      <button type="button" class="back" onClick={onBack}>
        ‹ Sessions
      </button>
      {renaming === null ? (
        <h1 class="chat-title" title={title}>
          {gone ? 'Session not found' : loading ? '…' : title.slice(0, 120)}
        </h1>
      ) : (
        <RenameForm title={renaming} input={titleInput} onInput={setRenaming} onSave={(text) => void actions.rename(text)} />
      )}
      {!gone && (
        <SessionMenu
          actions={actions}
          branches={branches}
          forkAt={currentEntry(tree, contents)}
          started={started(contents)}
          running={running}
          renameButton={renameButton}
          onBranches={onBranches}
          onRename={() => setRenaming(title)}
          onConfirm={setConfirming}
        />
      )}
      {contents && !gone && (
        <div class="session-meta">
          {model}
          {tree !== null && (
            <span class="session-usage" title="What every model call of this session used, on every branch">
              this session: {usageText(tree.usage)}
            </span>
          )}
        </div>
      )}
      {confirming !== null && (
        <Confirm
          what={confirming}
          title={title}
          onDone={(confirmed) => {
            setConfirming(null);
            if (confirmed && confirming === 'compact') void actions.compact();
            else if (confirmed) void actions.remove();
          }}
        />
      )}
    </header>
  );
}

/** Asks before Compact and Delete. `onDone` is told whether the user confirmed. */
function Confirm({ what, title, onDone }: { what: 'compact' | 'delete'; title: string; onDone(confirmed: boolean): void }) {
  return what === 'compact' ? (
    <ConfirmDialog
      title="Compact this session?"
      message="The model writes a summary of the conversation so far, and later turns see the summary instead of the messages. The messages stay in the session: Show earlier messages brings them back."
      confirm="Compact"
      onConfirm={() => onDone(true)}
      onCancel={() => onDone(false)}
    />
  ) : (
    <ConfirmDialog
      title="Delete this session?"
      message={`“${title.slice(0, 80)}” and every branch of it are deleted for good. This cannot be undone.`}
      confirm="Delete"
      danger
      onConfirm={() => onDone(true)}
      onCancel={() => onDone(false)}
    />
  );
}

interface RenameFormProps {
  title: string;
  input: RefObject<HTMLInputElement | null>;
  /** The title box's text changed; null: the box closes (Cancel, Escape). */
  onInput(title: string | null): void;
  /** Save with a title that is not blank (trimmed). */
  onSave(title: string): void;
}

function RenameForm({ title, input, onInput, onSave }: RenameFormProps) {
  return (
    <form
      class="rename"
      onSubmit={(event) => {
        event.preventDefault();
        if (title.trim() !== '') onSave(title.trim());
      }}
    >
      <input
        aria-label="Title"
        value={title}
        maxLength={120}
        ref={input}
        onInput={(event) => onInput(event.currentTarget.value)}
        onKeyDown={(event) => event.key === 'Escape' && onInput(null)}
      />
      <button type="submit">Save</button>
      <button type="button" onClick={() => onInput(null)}>
        Cancel
      </button>
    </form>
  );
}
