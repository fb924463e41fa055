/** A new session: an optional system prompt, and a model from those the server offers (`GET /models`). */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Models, SessionSummary } from '../api/client.js';
import { describeFailure } from '../api/failure.js';

export interface NewSessionProps {
  api: Api;
  onCreated(session: SessionSummary): void;
  onCancel(): void;
}

const choice = (provider: string, model: string): string => `${provider}/${model}`;

export function NewSession({ api, onCreated, onCancel }: NewSessionProps) {
  const [offered, setOffered] = useState<Models | null>(null);
  const [model, setModel] = useState('');
  const [system, setSystem] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const first = useRef<HTMLSelectElement>(null);

  // The form starts with the cursor on its first field once it can take it (it is disabled
  // until the models arrive; Preact's autoFocus only applies on page load).
  const ready = offered !== null;
  useEffect(() => {
    if (ready) first.current?.focus();
  }, [ready]);

  useEffect(() => {
    api.models().then(
      (models) => {
        setOffered(models);
        setModel(choice(models.default.provider, models.default.model));
      },
      (error: unknown) => setProblem(describeFailure(error)),
    );
  }, [api]);

  const create = async (): Promise<void> => {
    setCreating(true);
    setProblem(null);
    try {
      const isDefault = offered !== null && model === choice(offered.default.provider, offered.default.model);
      const slash = model.indexOf('/');
      const session = await api.createSession({
        ...(system.trim() === '' ? {} : { system }),
        // The server's default is not pinned: such a session follows the server's default.
        ...(isDefault || slash < 0 ? {} : { provider: model.slice(0, slash), model: model.slice(slash + 1) }),
      });
      onCreated(session);
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
        <select id="new-model" ref={first} value={model} onChange={(event) => setModel(event.currentTarget.value)} disabled={offered === null}>
          {offered?.providers.map((provider) => (
            <optgroup key={provider.name} label={provider.name}>
              {provider.models.map((each) => (
                <option key={each.id} value={choice(provider.name, each.id)}>
                  {each.id}
                  {each.id === provider.default_model ? ' (default)' : ''}
                  {each.status === 'deprecated' ? ' (deprecated)' : ''}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
        <label for="new-system">System prompt (optional)</label>
        <textarea id="new-system" rows={5} value={system} maxLength={100_000} onInput={(event) => setSystem(event.currentTarget.value)} />
        {problem && (
          <p class="notice" role="alert">
            {problem}
          </p>
        )}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={creating || offered === null}>
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
