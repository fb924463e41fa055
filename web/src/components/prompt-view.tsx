/**
 * One of your prompts in the transcript, with what can be done to it: **Edit** (a new version
 * of it, sent as a new branch from the same point — the old one stays), and, where it has other
 * versions, the switcher between them ("2 / 3", **Previous branch** / **Next branch**).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { PromptVersions } from '../branches.js';
import type { PromptControls } from '../hooks/use-branches.js';

export interface PromptViewProps {
  text: string;
  /** The prompt's entry id; undefined for one not stored yet (the turn streaming now). */
  id: string | undefined;
  /** The entry a new version would follow; undefined: it cannot be edited (see branches.ts editParent). */
  parentId: string | null | undefined;
  controls: PromptControls | undefined;
}

export function PromptView({ text, id, parentId, controls }: PromptViewProps) {
  const [editing, setEditing] = useState<string | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const versions = id === undefined ? null : (controls?.versions(id) ?? null);
  if (editing !== null && controls && parentId !== undefined) {
    return (
      <EditForm
        text={editing}
        onInput={setEditing}
        onCancel={() => {
          setEditing(null);
          // Back to Edit once it is drawn again, not to the page's start.
          requestAnimationFrame(() => editButton.current?.focus());
        }}
        onSave={(edited) => {
          setEditing(null);
          controls.onEdit(edited, { promptId: id, parentId });
          document.getElementById('composer')?.focus();
        }}
      />
    );
  }
  return (
    <div class="prompt-row">
      <div class="prompt">{text}</div>
      {controls && (parentId !== undefined || versions !== null) && (
        <div class="prompt-tools">
          {parentId !== undefined && (
            <button
              type="button"
              class="quiet"
              ref={editButton}
              // Which prompt, for a screen reader among several Edit buttons; the visible word comes first.
              aria-label={`Edit “${text.slice(0, 60)}”`}
              disabled={controls.busy}
              onClick={() => setEditing(text)}
            >
              Edit
            </button>
          )}
          {versions !== null && <BranchSwitcher versions={versions} busy={controls.busy} onSwitch={controls.onSwitch} />}
        </div>
      )}
    </div>
  );
}

interface EditFormProps {
  text: string;
  onInput(text: string): void;
  onCancel(): void;
  onSave(text: string): void;
}

function EditForm({ text, onInput, onCancel, onSave }: EditFormProps) {
  const box = useRef<HTMLTextAreaElement>(null);
  // A layout effect, so the caret is at the end before anything can type: with a plain effect
  // (run after paint) a fast keystroke or a test's fill could land first and be moved.
  useLayoutEffect(() => {
    const element = box.current;
    if (element === null) return;
    element.focus();
    element.setSelectionRange(element.value.length, element.value.length);
  }, []);
  const save = (): void => {
    if (text.trim() !== '') onSave(text);
  };
  return (
    <form
      class="prompt-edit"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <textarea
        ref={box}
        aria-label="Edit message"
        rows={Math.min(8, Math.max(2, text.split('\n').length))}
        value={text}
        onInput={(event) => onInput(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onCancel();
          else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            save();
          }
        }}
      />
      <p class="hint">Saving sends it as a new branch from here; the current one stays under Previous branch.</p>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={text.trim() === ''}>
          Save
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

interface SwitcherProps {
  versions: PromptVersions;
  busy: boolean;
  onSwitch(versionId: string): void;
}

/** "2 / 3" between Previous branch and Next branch. The focus stays on the switcher as the branch changes. */
function BranchSwitcher({ versions, busy, onSwitch }: SwitcherProps) {
  const { ids, position } = versions;
  const previous = useRef<HTMLButtonElement>(null);
  const next = useRef<HTMLButtonElement>(null);
  /** The button pressed last, to keep the focus on (or on the other, once this one is at its end). */
  const pressed = useRef<'previous' | 'next' | null>(null);
  const shown = useRef(position);
  // After each render: once the branch pressed for is shown, the focus goes back to the switcher.
  useEffect(() => {
    if (shown.current === position) return;
    shown.current = position;
    const which = pressed.current;
    pressed.current = null;
    if (which === null) return;
    const wanted = which === 'previous' ? previous.current : next.current;
    const other = which === 'previous' ? next.current : previous.current;
    (wanted && !wanted.disabled ? wanted : other)?.focus();
  });
  const go = (which: 'previous' | 'next'): void => {
    const target = ids[position + (which === 'previous' ? -1 : 1)];
    if (busy || target === undefined) return;
    pressed.current = which;
    onSwitch(target);
  };
  return (
    <div class="versions">
      <button type="button" class="quiet" ref={previous} aria-label="Previous branch" disabled={position === 0} onClick={() => go('previous')}>
        ‹
      </button>
      <span class="versions-count">
        {position + 1} / {ids.length}
      </span>
      <button type="button" class="quiet" ref={next} aria-label="Next branch" disabled={position === ids.length - 1} onClick={() => go('next')}>
        ›
      </button>
    </div>
  );
}
