/**
 * A new session, as the chat apps start one: the message box, ready to type in. The model (the
 * server's default until another is chosen, `GET /models`) and an optional system prompt are
 * there to change first; nothing is created until the first message is sent — then
 * `POST /sessions`, and the message goes as the new session's first turn. No empty session is
 * left behind by opening this and going elsewhere.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { CreateSessionRequest, Models, SessionSummary } from '../api/wire.js';
import { chosenModel, type ModelChoice, modelChoice, otherProvider, useModels } from '../hooks/use-models.js';
import { Alert } from './alert.js';
import { Composer } from './composer.js';
import { ModelNameInput, ModelSelect } from './model-select.js';

export interface NewSessionProps {
  api: Api;
  /** The session was created for its first message, `text`, which the chat it opens in sends. Must not throw. */
  onStarted(session: SessionSummary, text: string): void;
  /** Left without sending anything (Escape in an empty box, ‹ Sessions). Must not throw. */
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

export function NewSession({ api, onStarted, onCancel }: NewSessionProps) {
  const [system, setSystem] = useState('');
  const [draft, setDraft] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const models = useModels(api, setProblem);
  const other = otherProvider(models.model);
  const ready = models.offered !== null && (other === undefined || models.typed.trim() !== '');

  const start = async (text: string): Promise<void> => {
    if (text.trim() === '' || creating || !ready) return;
    setCreating(true);
    setProblem(null);
    try {
      onStarted(await api.createSession(creation(models.offered, models, system)), text);
    } catch (error) {
      setProblem(describeFailure(error));
      setCreating(false);
    }
  };

  return (
    <section class="chat new-session" aria-labelledby="new-session-title">
      <header class="chat-header">
        <button type="button" class="back" onClick={onCancel}>
          ‹ Sessions
        </button>
        <h1 id="new-session-title" class="chat-title">
          New session
        </h1>
        <div class="session-meta chat-model">
          <label for="new-model">Model</label>
          <ModelSelect id="new-model" offered={models.offered} value={models.model} onChange={models.setModel} disabled={creating} />
          {other !== undefined && <ModelNameInput id="new-model-name" provider={other} value={models.typed} onInput={models.setTyped} />}
        </div>
      </header>
      <div class="transcript new-session-body">
        <p class="empty">Type your first message below: the session starts with it.</p>
        <details class="system-prompt">
          <summary>System prompt</summary>
          <label for="new-system">System prompt (optional)</label>
          <textarea
            id="new-system"
            rows={4}
            value={system}
            maxLength={100_000}
            placeholder="How the model should answer in this session, e.g. “Answer briefly, in British English.”"
            onInput={(event) => setSystem(event.currentTarget.value)}
          />
        </details>
      </div>
      <Alert message={problem} />
      <Composer
        draft={draft}
        onDraft={setDraft}
        running={false}
        stopping={false}
        sending={creating}
        onSend={(text) => void start(text)}
        onStop={() => undefined}
        onEscape={() => draft === '' && !creating && onCancel()}
      />
    </section>
  );
}
