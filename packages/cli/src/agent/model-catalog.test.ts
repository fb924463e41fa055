import { findModel, modelStatus, OfflineProvider, type AssistantMessage, type SessionEntry } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { helpText } from '../commands/slash-commands.js';
import { modelsText } from '../commands/models-text.js';
import { checkedProviderFactory, describeCost, entriesCost, formatDollars, messagesCost, missingKey } from './model-catalog.js';
import type { ProviderChoice } from './provider-choice.js';

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
});
function reply(provider: string, model: string, input: number, output: number): AssistantMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text: 'ok' }],
    provider,
    model,
    stop_reason: 'end_turn',
    usage: usage(input, output),
  } as AssistantMessage;
}

describe('checkedProviderFactory', () => {
  const built: ProviderChoice[] = [];
  const build = (settings: ProviderChoice) => {
    built.push(settings);
    return new OfflineProvider({ model: settings.model });
  };

  it('refuses a provider without its key before building it', () => {
    const factory = checkedProviderFactory({}, build);
    expect(() => factory({ provider: 'anthropic', model: 'claude-sonnet-5-5' })).toThrow(/^no ANTHROPIC_API_KEY set/);
    expect(() => factory({ provider: 'openai' })).toThrow(/^no OPENAI_API_KEY set/);
    expect(built).toEqual([]);
  });

  it('takes an Anthropic base URL of your own without a key, as createProvider does', () => {
    expect(missingKey({ provider: 'anthropic', baseURL: 'http://127.0.0.1:9' }, {})).toBeUndefined();
    expect(missingKey({ provider: 'anthropic' }, { ANTHROPIC_AUTH_TOKEN: 't' })).toBeUndefined();
    expect(missingKey({ provider: 'anthropic' }, { ANTHROPIC_API_KEY: '  ' })).toMatch(/no ANTHROPIC_API_KEY/);
  });

  it('refuses a retired model, naming its replacement, and builds one the catalog does not know', () => {
    const factory = checkedProviderFactory({ ANTHROPIC_API_KEY: 'k' }, build);
    expect(() => factory({ provider: 'anthropic', model: 'claude-sonnet-4-5' })).toThrow('use "claude-sonnet-5-5"');
    expect(factory({ provider: 'anthropic', model: 'claude-next' }).model).toBe('claude-next');
  });
});

describe('modelsText', () => {
  it('lists each provider with its key status and its models that are not retired, the default first', () => {
    const text = modelsText('offline/offline-1', { OPENAI_API_KEY: 'k' }, '2026-12-01');
    expect(text).toMatch(/^ {2}anthropic {2}\(no ANTHROPIC_API_KEY set\)$/m);
    expect(text).toMatch(/^ {2}openai$/m);
    // The retired Anthropic model is left out (Bedrock's Claude Sonnet 4.5 profiles are other models).
    expect(text).not.toMatch(/^ {4}claude-sonnet-4-5 /m);
    expect(text).toMatch(/^ {2}bedrock$/m);
    expect(text).toMatch(/^ {4}global\.anthropic\.claude-sonnet-4-6 +default +\$3 in · \$15 out per million tokens$/m);
    const openai = text.slice(text.indexOf('  openai'));
    expect(openai.indexOf('gpt-5.4 ')).toBeLessThan(openai.indexOf('gpt-5.4-mini'));
    expect(text).toMatch(/gpt-5 +deprecated until 2026-12-11, use gpt-5\.4/);
  });
});

describe('cost', () => {
  it('prices known models in dollars and names the models it cannot price', () => {
    // gpt-5.4: $2.50 in, $15 out per million tokens.
    expect(messagesCost([reply('openai', 'gpt-5.4', 1000, 100)])).toEqual({ dollars: 0.004, unpriced: [] });
    const mixed = messagesCost([reply('openai', 'gpt-5.4', 1000, 100), reply('openai', 'my-model', 5, 5)]);
    expect(describeCost(mixed)).toBe("$0.0040 + unknown for openai/my-model (no prices in panto's catalog)");
  });

  it('counts every branch and the turns a compaction replaced, from the log', () => {
    const entries = [
      { type: 'message', id: 'a', parent_id: null, timestamp: 't', message: reply('openai', 'gpt-5.4', 1000, 100) },
      { type: 'message', id: 'b', parent_id: null, timestamp: 't', message: reply('openai', 'gpt-5.4', 1000, 100) },
      {
        type: 'compaction',
        id: 'c',
        parent_id: 'b',
        timestamp: 't',
        summary: 's',
        provider: 'openai',
        model: 'gpt-5.4',
        usage: usage(1000, 100),
        prior_usage: usage(2000, 200),
      },
    ] as SessionEntry[];
    expect(entriesCost(entries).dollars).toBeCloseTo(0.012, 10);
  });

  it('formats fractions of a dollar with four decimals and larger sums with two', () => {
    expect(formatDollars(0)).toBe('$0');
    expect(formatDollars(0.00404)).toBe('$0.0040');
    expect(formatDollars(12.345)).toBe('$12.35');
  });
});

describe('/help', () => {
  it('gives as its example a model that is in the catalog and not past its end of life', () => {
    const model = /\/model anthropic\/([\w.-]+)/.exec(helpText())?.[1];
    expect(model).toBeDefined();
    const info = findModel('anthropic', model!);
    expect(info).toBeDefined();
    expect(modelStatus(info!, '2026-12-01')).toBe('active');
  });
});
