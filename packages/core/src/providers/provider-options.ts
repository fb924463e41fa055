/**
 * The options every provider takes, declared once: each provider's options extend them with its
 * own (anthropic-messages.ts, openai-chat.ts, bedrock.ts), and `createProvider` takes them by name
 * (factory.ts). A provider's JSDoc says its defaults where they differ.
 */

/** How a call is made, whichever the model. */
export interface ProviderCallSettings {
  /** Maximum output tokens (each provider's default is on its class). */
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  /**
   * Milliseconds to wait for the response to start (the SDK's `timeout`, retried like a 5xx),
   * and then the longest silence allowed between stream events. Default 10 minutes.
   */
  timeoutMs?: number | undefined;
  /** Retries of 408/409/429/5xx, throttling and connection failures, with the SDK's backoff. Default 2. */
  maxRetries?: number | undefined;
}

/** What every provider's options hold: the model, and how to call it. */
export interface ProviderOptions extends ProviderCallSettings {
  /** The id the provider's API takes. */
  model: string;
}

/** The options of a provider reached over HTTP with an API key (Anthropic, OpenAI and compatible servers). */
export interface KeyedProviderOptions extends ProviderOptions {
  /** Default: the SDK's environment variable (`ANTHROPIC_API_KEY` / `OPENAI_API_KEY`). */
  apiKey?: string | undefined;
  /** Default: the SDK's base URL variable (`ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`), else the vendor's API. */
  baseURL?: string | undefined;
}
