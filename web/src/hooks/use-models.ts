/**
 * The models the server offers (`GET /models`, read once per sign-in and shared by every form
 * that picks one), and the one chosen among them: the default until another is — or, for a
 * provider that takes any model name (`any_model`: a server of your own, Ollama, vLLM), a name
 * typed in.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { ActiveModel, Models } from '../api/wire.js';
import { useLatest } from './use-latest.js';

/** How a listed model is chosen in a select: `provider/model`. */
export const modelChoice = (provider: string, model: string): string => `${provider}/${model}`;

/** How "a model of `provider` not listed, typed in" is chosen: no `/`, so never a listed model's choice. */
export const otherChoice = (provider: string): string => `other:${provider}`;

/** The provider whose typed-in model `choice` asks for; undefined for a listed model. */
export function otherProvider(choice: string): string | undefined {
  return choice.startsWith('other:') ? choice.slice('other:'.length) : undefined;
}

/** The model `choice` (with `typed`, the name typed in for an other-model choice) stands for; null while no name is typed. */
export function chosenModel(choice: string, typed: string): ActiveModel | null {
  const other = otherProvider(choice);
  if (other !== undefined) return typed.trim() === '' ? null : { provider: other, model: typed.trim() };
  const slash = choice.indexOf('/');
  return slash < 0 ? null : { provider: choice.slice(0, slash), model: choice.slice(slash + 1) };
}

/** One read of `GET /models` per signed-in API; a failed read is tried again next time. */
const offerings = new WeakMap<Api, Promise<Models>>();

function offeredBy(api: Api): Promise<Models> {
  let offered = offerings.get(api);
  if (offered === undefined) {
    offered = api.models();
    offerings.set(api, offered);
    offered.catch(() => offerings.delete(api));
  }
  return offered;
}

/** What the server offers (null until it has answered); `say` is told, in words, why it could not be read. Must not throw. */
export function useOfferedModels(api: Api, say: (problem: string) => void): Models | null {
  const [offered, setOffered] = useState<Models | null>(null);
  const failed = useLatest(say);
  useEffect(() => {
    offeredBy(api).then(setOffered, (error: unknown) => failed.current(describeFailure(error)));
  }, [api, failed]);
  return offered;
}

export interface ModelChoice {
  /** What the server offers; null until it has answered. */
  offered: Models | null;
  /** The choice, as {@link modelChoice} or {@link otherChoice} writes it; `''` until the server has answered. */
  model: string;
  setModel(model: string): void;
  /** The model name typed in, for an other-model choice. */
  typed: string;
  setTyped(typed: string): void;
}

/** The model of a new session: the server's default until another is chosen. */
export function useModels(api: Api, say: (problem: string) => void): ModelChoice {
  const offered = useOfferedModels(api, say);
  const [model, setModel] = useState('');
  const [typed, setTyped] = useState('');
  const shown = model === '' && offered !== null ? modelChoice(offered.default.provider, offered.default.model) : model;
  return { offered, model: shown, setModel, typed, setTyped };
}

/**
 * The models of `provider` a select lists, each with its label: a deprecated one only when it
 * is the one chosen (`value`: the session's own), marked so; "(default)" on the server's
 * default alone — a provider's own default is what a session of it gets when it names none, not
 * a choice to point out.
 */
export function listedModels(offered: Models, provider: Models['providers'][number], value: string): { choice: string; label: string }[] {
  return provider.models
    .map((model) => ({ model, choice: modelChoice(provider.name, model.id) }))
    .filter(({ model, choice }) => model.status !== 'deprecated' || choice === value)
    .map(({ model, choice }) => {
      const isDefault = provider.name === offered.default.provider && model.id === offered.default.model;
      return { choice, label: `${model.id}${isDefault ? ' (default)' : ''}${model.status === 'deprecated' ? ' (deprecated)' : ''}` };
    });
}
