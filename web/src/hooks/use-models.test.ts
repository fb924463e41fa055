import { describe, expect, it } from 'vitest';
import { chosenModel, modelChoice, otherChoice, otherProvider } from './use-models.js';

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
