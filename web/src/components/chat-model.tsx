/**
 * The model of an open session, changeable from the header (`PATCH /sessions/{id}`): the
 * select labelled Model, and — for a provider that takes any model name — a box to type it
 * in. The change applies to the next turn; while a turn runs it waits (the server would answer
 * 409).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { ActiveModel } from '../api/wire.js';
import { chosenModel, modelChoice, otherProvider, useOfferedModels } from '../hooks/use-models.js';
import { ModelNameInput, ModelSelect } from './model-select.js';

export interface ChatModelProps {
  api: Api;
  sessionId: string;
  current: ActiveModel;
  /** A turn runs: the model cannot change now. */
  running: boolean;
  /** Sets the chat's notice line. Must not throw. */
  say(notice: string | null): void;
  /** The model changed: the session is read again, the list refreshed. */
  onChanged(): Promise<unknown>;
}

export function ChatModel({ api, sessionId, current, running, say, onChanged }: ChatModelProps) {
  const offered = useOfferedModels(api, say);
  /** A choice not applied yet: an other-model one waiting for its name, or one being saved. */
  const [choice, setChoice] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const [saving, setSaving] = useState(false);
  const other = choice === null ? undefined : otherProvider(choice);
  // "Other model…" chosen: the cursor goes where the name is typed.
  useEffect(() => {
    if (other !== undefined) document.getElementById('chat-model-name')?.focus();
  }, [other]);

  const apply = async (model: ActiveModel): Promise<void> => {
    setSaving(true);
    say(null);
    try {
      await api.setModel(sessionId, model);
      await onChanged();
      setTyped('');
    } catch (error) {
      say(describeFailure(error));
    } finally {
      setChoice(null);
      setSaving(false);
    }
  };

  const choose = (next: string): void => {
    setChoice(next);
    const model = chosenModel(next, '');
    if (model !== null) void apply(model);
  };

  return (
    <div class="chat-model">
      <label for="chat-model">Model</label>
      <ModelSelect
        id="chat-model"
        offered={offered}
        value={choice ?? modelChoice(current.provider, current.model)}
        current={current}
        onChange={choose}
        disabled={running || saving}
      />
      {other !== undefined && (
        <form
          class="chat-model-name"
          onSubmit={(event) => {
            event.preventDefault();
            const model = chosenModel(choice ?? '', typed);
            if (model !== null) void apply(model);
          }}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setChoice(null);
          }}
        >
          <ModelNameInput id="chat-model-name" provider={other} value={typed} onInput={setTyped} />
          <button type="submit" disabled={typed.trim() === '' || running || saving}>
            Use
          </button>
          <button type="button" onClick={() => setChoice(null)}>
            Cancel
          </button>
        </form>
      )}
    </div>
  );
}
