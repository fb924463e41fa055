/**
 * A model among those the server offers, grouped by provider — the new session's and the chat
 * header's: the server's default marked, no deprecated model but the session's own
 * (`listedModels`). A provider that takes any model name (`any_model`) also offers "Other
 * model…", for which the form shows a box to type the name in ({@link ModelNameInput}).
 */
import { useEffect, useRef } from 'preact/hooks';
import type { ActiveModel, Models } from '../api/wire.js';
import { listedModels, modelChoice, otherChoice } from '../hooks/use-models.js';

export interface ModelSelectProps {
  id: string;
  offered: Models | null;
  /** The choice shown (see use-models.ts). */
  value: string;
  onChange(choice: string): void;
  /** The session's model, listed under its provider even when the server does not offer it (a name typed in, a retired model). */
  current?: ActiveModel;
  disabled?: boolean;
  /** Take the focus once the models have arrived (the select is disabled until then). */
  focusWhenReady?: boolean;
}

export function ModelSelect({ id, offered, value, onChange, current, disabled, focusWhenReady }: ModelSelectProps) {
  const select = useRef<HTMLSelectElement>(null);
  const ready = offered !== null;
  useEffect(() => {
    if (ready && focusWhenReady) select.current?.focus();
  }, [ready, focusWhenReady]);
  const providers = offered?.providers ?? [];
  const unlisted = current !== undefined && !providers.some((provider) => provider.name === current.provider) ? [current] : [];
  return (
    <select id={id} ref={select} value={value} onChange={(event) => onChange(event.currentTarget.value)} disabled={offered === null || disabled}>
      {providers.map((provider) => (
        <optgroup key={provider.name} label={provider.name}>
          {offered !== null &&
            listedModels(offered, provider, value).map(({ choice, label }) => (
              <option key={choice} value={choice}>
                {label}
              </option>
            ))}
          {current?.provider === provider.name && !provider.models.some((each) => each.id === current.model) && (
            <option value={modelChoice(current.provider, current.model)}>{current.model}</option>
          )}
          {provider.any_model && <option value={otherChoice(provider.name)}>Other {provider.name} model…</option>}
        </optgroup>
      ))}
      {unlisted.map((model) => (
        <optgroup key={model.provider} label={`${model.provider} (not configured here)`}>
          <option value={modelChoice(model.provider, model.model)}>{model.model}</option>
        </optgroup>
      ))}
    </select>
  );
}

export interface ModelNameInputProps {
  id: string;
  provider: string;
  value: string;
  onInput(value: string): void;
}

/** The box for a model name the server's provider takes whatever it is (`any_model`), with its label. */
export function ModelNameInput({ id, provider, value, onInput }: ModelNameInputProps) {
  return (
    <>
      <label for={id}>Model name</label>
      <input
        id={id}
        class="model-name"
        value={value}
        maxLength={200}
        placeholder={`the name ${provider} knows it by, e.g. llama3.1:8b`}
        spellcheck={false}
        autocomplete="off"
        onInput={(event) => onInput(event.currentTarget.value)}
      />
    </>
  );
}
