export {
  AnthropicMessagesProvider,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  normaliseAnthropicStopReason,
  type AnthropicMessagesOptions,
} from './anthropic-messages.js';
export {
  BedrockConverseProvider,
  DEFAULT_BEDROCK_THINKING_MAX_TOKENS,
  normaliseBedrockStopReason,
  type BedrockConverseOptions,
  type BedrockCredentials,
} from './bedrock.js';
export { DEFAULT_BEDROCK_MODEL } from './bedrock-models.js';
export { deferredProvider, type DeferredProvider } from './deferred.js';
export {
  createProvider,
  defaultProviderName,
  PROVIDER_CREDENTIAL_VARIABLES,
  PROVIDER_NAMES,
  type CreateProviderOptions,
  type ProviderName,
} from './factory.js';
export { OFFLINE_PREFIX, OfflineProvider, type OfflineProviderOptions } from './offline.js';
export { normaliseOpenAIStopReason, OpenAIChatProvider, type OpenAIChatOptions } from './openai-chat.js';
export { compactionText, DEFAULT_TIMEOUT_MS, TOOL_ERROR_PREFIX } from './wire-common.js';
export {
  assertModelOffered,
  DEFAULT_MODELS,
  costAt,
  findModel,
  isValidModelName,
  KNOWN_MODELS,
  MODEL_NAME_RULE,
  modelStatus,
  MODELS_READ_ON,
  usageCost,
  type ModelCheckOptions,
  type ModelInfo,
  type ModelPrices,
  type ModelStatus,
} from './models.js';
