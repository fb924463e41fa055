/** The head of a chat: the way back, the session's title (or the box renaming it), its actions, its model and usage. */
import type { RefObject } from 'preact';
import type { SessionContents } from '../api/wire.js';
import { usageText } from '../format.js';
import { useRenameFocus } from '../hooks/use-rename-focus.js';
import type { SessionActions } from '../hooks/use-session-actions.js';

export interface ChatHeaderProps {
  /** The session's title as it stands: listed, or its first prompt, or "Untitled session". */
  title: string;
  contents: SessionContents | null;
  gone: boolean;
  /** A turn runs: the session may not be compacted or deleted. */
  running: boolean;
  actions: SessionActions;
  onBack(): void;
}

export function ChatHeader({ title, contents, gone, running, actions, onBack }: ChatHeaderProps) {
  const { working, renaming, setRenaming } = actions;
  const { titleInput, renameButton } = useRenameFocus(renaming !== null);
  return (
    <header class="chat-header">
      <button type="button" class="back" onClick={onBack}>
        ‹ Sessions
      </button>
      {renaming === null ? (
        <h1 class="chat-title" title={title}>
          {gone ? 'Session not found' : contents === null ? '…' : title.slice(0, 120)}
        </h1>
      ) : (
        <RenameForm title={renaming} input={titleInput} onInput={setRenaming} onSave={(text) => void actions.rename(text)} />
      )}
      {!gone && (
        <div class="actions">
          <button type="button" ref={renameButton} onClick={() => setRenaming(title)} disabled={working !== null || renaming !== null}>
            Rename
          </button>
          <button type="button" onClick={() => void actions.exportSession()} disabled={working !== null}>
            {working === 'export' ? 'Exporting…' : 'Export'}
          </button>
          <button type="button" onClick={() => void actions.compact()} disabled={working !== null || running}>
            {working === 'compact' ? 'Compacting…' : 'Compact'}
          </button>
          <button type="button" class="danger" onClick={() => void actions.remove()} disabled={working !== null || running}>
            Delete
          </button>
        </div>
      )}
      {contents && (
        <p class="session-meta">
          {contents.active_model.provider}/{contents.active_model.model} · this session: {usageText(contents.usage)}
        </p>
      )}
    </header>
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
