/** The model of a new session, among those the server offers, grouped by provider. */
import { useEffect, useRef } from 'preact/hooks';
import { type ModelChoice, modelChoice } from '../hooks/use-models.js';

export function ModelSelect({ offered, model, setModel }: ModelChoice) {
  const select = useRef<HTMLSelectElement>(null);
  // The form starts with the cursor on its first field, this one, once it can take it (it is
  // disabled until the models arrive; Preact's autoFocus only applies on page load).
  const ready = offered !== null;
  useEffect(() => {
    if (ready) select.current?.focus();
  }, [ready]);
  return (
    <select id="new-model" ref={select} value={model} onChange={(event) => setModel(event.currentTarget.value)} disabled={offered === null}>
      {offered?.providers.map((provider) => (
        <optgroup key={provider.name} label={provider.name}>
          {provider.models.map((each) => (
            <option key={each.id} value={modelChoice(provider.name, each.id)}>
              {each.id}
              {each.id === provider.default_model ? ' (default)' : ''}
              {each.status === 'deprecated' ? ' (deprecated)' : ''}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}
