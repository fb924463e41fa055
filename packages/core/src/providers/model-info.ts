/** What the model catalog knows of a model (models.ts, bedrock-models.ts). */

/**
 * Where a model is in its vendor's lifecycle: `active` (recommended), `legacy` (superseded,
 * still served), `deprecated` (served until `retiresOn`), `retired` (requests fail).
 */
export type ModelStatus = 'active' | 'legacy' | 'deprecated' | 'retired';

/** List prices in US dollars per million tokens. */
export interface ModelPrices {
  /** Input tokens that are neither read from nor written to the prompt cache. */
  input: number;
  output: number;
  /** Input tokens read from the prompt cache. */
  cacheRead: number;
  /** Input tokens written to the prompt cache (Anthropic's 5-minute cache; OpenAI charges none extra: the input price). */
  cacheWrite: number;
}

export interface ModelInfo {
  /** The provider's name in panto (`anthropic`, `openai`, `bedrock`, `offline`). */
  provider: string;
  /** The id the provider's API takes (Bedrock: a model id or an inference profile id). */
  id: string;
  status: ModelStatus;
  /** The day requests start failing (ISO date), when announced; on and after it the model counts as retired. */
  retiresOn?: string;
  /** What to use instead, for a model that is deprecated or retired. */
  replacement?: string;
  /** Absent when not known with confidence. */
  prices?: ModelPrices;
  /** Where the facts come from. */
  source: string;
}
