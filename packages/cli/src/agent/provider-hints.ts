/**
 * What to check when a provider call fails: the URL panto called and where that URL came
 * from (`--base-url`, `OPENAI_BASE_URL`, the vendor's default), the variable the refused key
 * came from. The provider's own message says what went wrong; this says where to look.
 */
import { ModelAccessDeniedError, ProviderError } from '@panto/core';
import type { ProviderChoice } from './provider-choice.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The vendors' own endpoints, as their SDKs default to them. */
const DEFAULT_URLS = { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com/v1' } as const;
const BASE_URL_VARIABLES = { anthropic: 'ANTHROPIC_BASE_URL', openai: 'OPENAI_BASE_URL', bedrock: 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME' } as const;

/** The endpoint a provider calls, and where that came from, in words. */
export interface Endpoint {
  url: string;
  /** `--base-url`, `OPENAI_BASE_URL`, `the default`, … */
  source: string;
  /** Whether it is the vendor's own (no flag or variable set it). */
  isDefault: boolean;
}

/** The endpoint of `choice`: `--base-url`, else the SDK's variable, else the vendor's (undefined for the offline provider). */
export function providerEndpoint(choice: ProviderChoice, env: Env): Endpoint | undefined {
  if (choice.provider === 'offline') return undefined;
  if (choice.baseURL !== undefined) return { url: choice.baseURL, source: '--base-url', isDefault: false };
  const variable = BASE_URL_VARIABLES[choice.provider];
  const fromEnv = env[variable];
  if (fromEnv) return { url: fromEnv, source: variable, isDefault: false };
  if (choice.provider === 'bedrock') {
    const region = choice.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    const url = region === undefined ? "the region's Bedrock endpoint" : `https://bedrock-runtime.${region}.amazonaws.com`;
    return {
      url,
      source: `the default (${choice.region !== undefined ? '--region' : 'AWS_REGION or your AWS profile'}; ${variable} or --base-url set another)`,
      isDefault: true,
    };
  }
  return { url: DEFAULT_URLS[choice.provider], source: `the default; ${variable} or --base-url set another`, isDefault: true };
}

/** Where the credentials of `choice` came from, in words. */
export function credentialSource(choice: ProviderChoice, env: Env): string {
  switch (choice.provider) {
    case 'anthropic': {
      const set = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'].filter((name) => env[name]);
      return set.length === 0 ? 'no key is set (ANTHROPIC_API_KEY)' : `the key is ${set.join(' and ')}`;
    }
    case 'openai':
      return 'the key is OPENAI_API_KEY';
    case 'bedrock': {
      if (env.AWS_BEARER_TOKEN_BEDROCK) return 'the key is AWS_BEARER_TOKEN_BEDROCK';
      if (env.AWS_ACCESS_KEY_ID) return 'the credentials are AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN)';
      const profile = env.AWS_PROFILE ? `AWS_PROFILE=${env.AWS_PROFILE}` : 'the default AWS profile';
      return `the credentials are ${profile}'s (aws sso login, aws configure)`;
    }
    case 'offline':
      return 'no credentials';
    default: {
      const unexpected: never = choice.provider;
      return unexpected;
    }
  }
}

/**
 * What to check about a failed call of `choice`, or undefined when there is nothing to add:
 * a connection that failed names the URL and its source; a refused key (401, and Bedrock's
 * 403s other than model access) names its variable; a 404 names the URL and the model.
 *
 * @example
 * providerErrorHint(error, { provider: 'openai', baseURL: 'http://127.0.0.1:9/v1' }, env);
 * // 'panto called http://127.0.0.1:9/v1 (from --base-url): is a server listening there?'
 */
export function providerErrorHint(error: Error | undefined, choice: ProviderChoice, env: Env): string | undefined {
  if (!(error instanceof ProviderError) || error instanceof ModelAccessDeniedError) return undefined;
  const endpoint = providerEndpoint(choice, env);
  if (endpoint === undefined) return undefined;
  const at = `${endpoint.url} (from ${endpoint.source})`;
  // A connection that failed before any answer: no status, no type of the provider's, worth retrying.
  if (error.status === undefined && error.type === undefined && error.retryable) {
    return endpoint.isDefault ? `panto called ${at}: check this machine's network` : `panto called ${at}: is a server listening there, and is the URL right?`;
  }
  const refused = error.status === 401 || (choice.provider === 'bedrock' && error.status === 403);
  if (refused) {
    const server = endpoint.isDefault ? '' : `, or whether ${endpoint.url} (from ${endpoint.source}) is the server it is for`;
    return `${credentialSource(choice, env)}: check it${server}`;
  }
  if (error.status === 404) return `panto called ${at} for the model ${choice.model ?? '(the default)'}: check both (--base-url, --model)`;
  return undefined;
}
