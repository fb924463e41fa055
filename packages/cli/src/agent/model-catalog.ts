/**
 * The CLI's view of @panto/core's model catalog (`KNOWN_MODELS`, `DEFAULT_MODELS`: the one
 * place model names and prices live): refusing a provider without its key before any turn,
 * and the cost of turns and sessions in dollars (the `/model` listing is commands/models-text.ts).
 */
import { assertModelOffered, DEFAULT_MODELS, findModel, KNOWN_MODELS, usageCost, type Agent, type Message, type SessionEntry, type Usage } from '@panto/core';
import { CliError } from '../errors.js';
import { defaultProviderFactory, type ProviderChoice, type ProviderFactory } from './provider-choice.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Why `provider` cannot be used with this environment — its API key is missing — or
 * undefined when it can. Anthropic also takes `ANTHROPIC_AUTH_TOKEN`, or a `--base-url`
 * server of your own (as `createProvider` does); the OpenAI SDK always wants a key (any
 * value does for a local server that checks none).
 */
export function missingKey(settings: ProviderChoice, env: Env): string | undefined {
  switch (settings.provider) {
    case 'anthropic':
      if (env.ANTHROPIC_API_KEY?.trim() || env.ANTHROPIC_AUTH_TOKEN?.trim() || settings.baseURL) return undefined;
      return 'no ANTHROPIC_API_KEY set: export ANTHROPIC_API_KEY=sk-ant-… first (or ANTHROPIC_AUTH_TOKEN)';
    case 'openai':
      if (env.OPENAI_API_KEY?.trim()) return undefined;
      return 'no OPENAI_API_KEY set: export OPENAI_API_KEY=sk-… first (any value for a local server that needs none)';
    case 'bedrock':
    // No key: the AWS SDK finds credentials (SSO, a profile, the environment) when the first call is made.
    case 'offline':
      return undefined;
    default: {
      const unexpected: never = settings.provider;
      return unexpected;
    }
  }
}

/**
 * A provider factory that refuses, with a {@link CliError} and before anything is sent, a
 * provider whose key is missing and a model its vendor has retired; other models, known to
 * the catalog or not, are built by `build` (default: the real providers).
 */
export function checkedProviderFactory(env: Env, build: ProviderFactory = defaultProviderFactory): ProviderFactory {
  return (settings) => {
    const missing = missingKey(settings, env);
    if (missing !== undefined) throw new CliError(missing);
    const model = settings.model ?? DEFAULT_MODELS[settings.provider];
    try {
      // Only retirement is judged here: a model the catalog does not know may be newer than panto.
      assertModelOffered(settings.provider, model, { extra: [`${settings.provider}/${model}`] });
    } catch (error) {
      throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    return build(settings);
  };
}

/** What some usage cost: dollars for the priced part, and the models whose usage could not be priced. */
export interface Cost {
  dollars: number;
  /** `provider/model` of usage panto has no prices for (empty when all of it was priced). */
  unpriced: string[];
}

/** The cost of the assistant messages (and compactions) among `messages`. */
export function messagesCost(messages: readonly Message[]): Cost {
  const parts: { provider: string; model: string; usage: Usage }[] = [];
  for (const message of messages) {
    if (message.role === 'assistant' || message.role === 'compaction') parts.push(message);
  }
  return sumCost(parts);
}

/**
 * The cost of every provider call a session's log records — every branch, and the turns a
 * compaction replaced — so it does not shrink when the conversation does.
 */
export function entriesCost(entries: readonly SessionEntry[]): Cost {
  const parts: { provider: string; model: string; usage: Usage }[] = [];
  for (const entry of entries) {
    if (entry.type === 'compaction') parts.push(entry);
    else if (entry.type === 'message' && entry.message.role === 'assistant') parts.push(entry.message);
  }
  return sumCost(parts);
}

function sumCost(parts: readonly { provider: string; model: string; usage: Usage }[]): Cost {
  let dollars = 0;
  const unpriced = new Set<string>();
  for (const part of parts) {
    const cost = usageCost(part.provider, part.model, part.usage);
    if (cost === undefined) unpriced.add(`${part.provider}/${part.model}`);
    else dollars += cost;
  }
  return { dollars, unpriced: [...unpriced] };
}

/** ` · $0.0040` after a turn's tokens, when all of it was priced; empty otherwise (the tokens say it). */
export function costSuffix(cost: Cost): string {
  return cost.unpriced.length === 0 ? ` · ${formatDollars(cost.dollars)}` : '';
}

/** The `/session` cost line's value. */
export function describeCost(cost: Cost): string {
  if (cost.unpriced.length === 0) return formatDollars(cost.dollars);
  const unknown = `unknown for ${cost.unpriced.join(', ')} (no prices in panto's catalog)`;
  return cost.dollars > 0 ? `${formatDollars(cost.dollars)} + ${unknown}` : unknown;
}

/** `$0.0040` below a dollar (list prices make most turns cost fractions of a cent), `$1.23` above. */
export function formatDollars(dollars: number): string {
  if (dollars === 0) return '$0';
  return `$${dollars < 1 ? dollars.toFixed(4) : dollars.toFixed(2)}`;
}

/**
 * What the session cost so far: from its log when it has one (every branch, and what
 * compactions replaced), else from the conversation in memory. Rejects as the store's read
 * does: a log that cannot be read has no cost to tell (the caller says so, never $0).
 */
export async function sessionCost(context: { agent: Agent }): Promise<Cost> {
  const { entries } = await context.agent.sessionStore.loadTree();
  return entries.length > 0 ? entriesCost(entries) : messagesCost(context.agent.conversation.messages);
}

/** A note for a model the catalog does not list (of a provider it does): sent as it is, its cost unknown. */
export function uncataloguedNote(provider: string, model: string): string | undefined {
  if (findModel(provider, model) !== undefined || !KNOWN_MODELS.some((info) => info.provider === provider)) return undefined;
  return `${provider}/${model} is not in panto's catalog (/model lists it): it is sent as it is, and turns show tokens, not dollars`;
}
