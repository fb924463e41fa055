import { describe, expect, it } from 'vitest';
import type { Models } from '../api/wire.js';
import { chosenModel, listedModels, modelChoice, otherChoice, otherProvider } from './use-models.js';

describe('a model choice', () => {
  it('is a listed model as provider/model, the model name keeping its own slashes', () => {
    expect(chosenModel(modelChoice('anthropic', 'claude-web'), '')).toEqual({ provider: 'anthropic', model: 'claude-web' });
    expect(chosenModel(modelChoice('openai', 'meta-llama/Llama-3-8B'), 'ignored')).toEqual({ provider: 'openai', model: 'meta-llama/Llama-3-8B' });
  });

  it("is a name of one's own for a provider that takes any, once one is typed", () => {
    const choice = otherChoice('openai');
    expect(otherProvider(choice)).toBe('openai');
    expect(otherProvider(modelChoice('openai', 'gpt-5'))).toBeUndefined();
    expect(chosenModel(choice, '   ')).toBeNull();
    expect(chosenModel(choice, ' llama3.1:8b ')).toEqual({ provider: 'openai', model: 'llama3.1:8b' });
  });
});

const offered: Models = {
  default: { provider: 'anthropic', model: 'claude-sonnet-5' },
  providers: [
    {
      name: 'anthropic',
      default_model: 'claude-sonnet-5',
      any_model: false,
      models: [
        { id: 'claude-sonnet-5', status: 'active' },
        { id: 'claude-haiku-5', status: 'active' },
      ],
    },
    {
      name: 'openai',
      default_model: 'gpt-5.4',
      any_model: false,
      models: [
        { id: 'gpt-5.4', status: 'active' },
        { id: 'gpt-5', status: 'deprecated' },
      ],
    },
  ],
};
const [anthropic, openai] = offered.providers as [Models['providers'][number], Models['providers'][number]];

describe('listedModels', () => {
  it('marks only the server’s default "(default)", not each provider’s', () => {
    expect(listedModels(offered, anthropic, '').map((model) => model.label)).toEqual(['claude-sonnet-5 (default)', 'claude-haiku-5']);
    expect(listedModels(offered, openai, '').map((model) => model.label)).toEqual(['gpt-5.4']);
  });

  it('offers no deprecated model for a new choice, but shows one a session already uses', () => {
    expect(listedModels(offered, openai, 'anthropic/claude-sonnet-5').map((model) => model.choice)).toEqual(['openai/gpt-5.4']);
    expect(listedModels(offered, openai, 'openai/gpt-5')).toEqual([
      { choice: 'openai/gpt-5.4', label: 'gpt-5.4' },
      { choice: 'openai/gpt-5', label: 'gpt-5 (deprecated)' },
    ]);
  });
});
