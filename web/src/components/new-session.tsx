/** A new session: an optional system prompt, and a model from those the server offers (`GET /models`). */
import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { CreateSessionRequest, Models, SessionSummary } from '../api/wire.js';
import { chosenModel, type ModelChoice, modelChoice, otherProvider, useModels } from '../hooks/use-models.js';
import { Alert } from './alert.js';
import { ModelNameInput, ModelSelect } from './model-select.js';

export interface NewSessionProps {
  api: Api;
  onCreated(session: SessionSummary): void;
  onCancel(): void;
}

/** What `POST /sessions` is sent for the chosen model and `system`. */
function creation(offered: Models | null, { model, typed }: Pick<ModelChoice, 'model' | 'typed'>, system: string): CreateSessionRequest {
  const isDefault = offered !== null && model === modelChoice(offered.default.provider, offered.default.model);
  const chosen = chosenModel(model, typed);
  return {
    ...(system.trim() === '' ? {} : { system }),
    // The server's default is not pinned: such a session follows the server's default.
    ...(isDefault || chosen === null ? {} : chosen),
  };
}

export function NewSession({ api, onCreated, onCancel }: NewSessionProps) {
  const [system, setSystem] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const models = useModels(api, setProblem);
  const other = otherProvider(models.model);

  const create = async (): Promise<void> => {
    setCreating(true);
    setProblem(null);
    try {
      onCreated(await api.createSession(creation(models.offered, models, system)));
    } catch (error) {
      setProblem(describeFailure(error));
    } finally {
      setCreating(false);
    }
  };

  return (
    <section class="new-session" aria-labelledby="new-session-title">
      <h1 id="new-session-title">New session</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && !creating) {
            event.preventDefault();
            onCancel();
          }
        }}
      >
        <label for="new-model">Model</label>
        <ModelSelect id="new-model" offered={models.offered} value={models.model} onChange={models.setModel} focusWhenReady />
        {other !== undefined && <ModelNameInput id="new-model-name" provider={other} value={models.typed} onInput={models.setTyped} />}
        <label for="new-system">System prompt (optional)</label>
        <textarea id="new-system" rows={5} value={system} maxLength={100_000} onInput={(event) => setSystem(event.currentTarget.value)} />
        <Alert message={problem} />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={creating || models.offered === null || (other !== undefined && models.typed.trim() === '')}>
            {creating ? 'Creating…' : 'Create'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
