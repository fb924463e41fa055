/** The models the server offers (`GET /models`), and the one chosen among them: the default until another is. */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { Models } from '../api/wire.js';
import { useLatest } from './use-latest.js';

/** How a model is chosen in the form: `provider/model`. */
export const modelChoice = (provider: string, model: string): string => `${provider}/${model}`;

export interface ModelChoice {
  /** What the server offers; null until it has answered. */
  offered: Models | null;
  /** The chosen model, as {@link modelChoice} writes it; `''` until the server has answered. */
  model: string;
  setModel(model: string): void;
}

/** `say` is told, in words, why the models could not be read. Must not throw. */
export function useModels(api: Api, say: (problem: string) => void): ModelChoice {
  const [offered, setOffered] = useState<Models | null>(null);
  const [model, setModel] = useState('');
  const failed = useLatest(say);
  useEffect(() => {
    api.models().then(
      (models) => {
        setOffered(models);
        setModel(modelChoice(models.default.provider, models.default.model));
      },
      (error: unknown) => failed.current(describeFailure(error)),
    );
  }, [api, failed]);
  return { offered, model, setModel };
}
