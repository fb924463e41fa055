export {
  Agent,
  type AgentConfig,
  type AgentOptions,
  type CompactionResult,
  type ResumedAgent,
  type ResumeOptions,
  type RunOptions,
} from './agent/agent.js';
export { DEFAULT_COMPACTION_PROMPT } from './agent/compaction.js';
export { Conversation } from './conversation.js';
export * from './errors.js';
export { addSecret, redactError, redactSecrets } from './redact.js';
export { MAX_CALL_TOKENS, saneUsage } from './providers/sane-usage.js';
export type { AgentEvent, Receiver, StepResult } from './agent/events.js';
export { ID_RULE, isValidId, newId, systemClock, type Clock, type IdGenerator } from './ids.js';
export { exceedsJSONDepth, MAX_ENTRY_DEPTH, MAX_JSON_DEPTH, tooDeepReason } from './json-limits.js';
export {
  addUsage,
  assistantText,
  effectiveSystemPrompt,
  emptyUsage,
  messageUsage,
  STOP_REASONS,
  toolCalls,
} from './messages.js';
export type {
  AssistantBlock,
  AssistantMessage,
  CompactionMessage,
  ImageBlock,
  JsonValue,
  Message,
  RedactedThinkingBlock,
  Role,
  StopReason,
  SystemMessage,
  SystemMode,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultMessage,
  Usage,
  UserMessage,
} from './messages.js';
export type {
  Provider,
  ProviderCallOptions,
  ProviderEndEvent,
  ProviderEvent,
  ProviderRequest,
  ProviderStreamEvent,
} from './providers/provider.js';
export { SESSION_FORMAT_VERSION, type SessionHeader } from './session/format.js';
export type {
  ActiveModel,
  DiskCompactionRecord,
  DiskMessage,
  DiskMessageRecord,
  LeafEntry,
  LoadedSession,
  LoadOptions,
  AppendOptions,
  ReadNote,
  RecordEntry,
  SessionEntry,
  SessionStore,
} from './session/store.js';
export { acceptsPrompt, entryPreview, PREVIEW_LENGTH, SessionTree } from './session/tree.js';
export { MemoryStore, type MemoryStoreOptions } from './stores/memory-store.js';
export { NullStore } from './stores/null-store.js';
export {
  ToolRegistry,
  type BeforeToolCall,
  type Tool,
  type ToolCallDecision,
  type ToolContext,
  type ToolDefinition,
  type ToolInputSchema,
  type ToolOutput,
} from './tool.js';
export { FSJSONLStore, type FSJSONLStoreCreateOptions, type FSJSONLStoreOpenOptions } from './stores/fs-jsonl-store.js';
export {
  findMostRecentSession,
  listSessions,
  resolveSessionId,
  sessionInfo,
  type SessionInfo,
} from './stores/fs-catalog.js';
export type { FileLockOptions } from './stores/file-lock.js';
export {
  AnthropicMessagesProvider,
  assertModelOffered,
  BedrockConverseProvider,
  DEFAULT_BEDROCK_MODEL,
  type BedrockConverseOptions,
  type BedrockCredentials,
  createProvider,
  deferredProvider,
  type DeferredProvider,
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
  defaultProviderName,
  OfflineProvider,
  OpenAIChatProvider,
  PROVIDER_CREDENTIAL_VARIABLES,
  PROVIDER_NAMES,
  type AnthropicMessagesOptions,
  type CreateProviderOptions,
  type OfflineProviderOptions,
  type OpenAIChatOptions,
  type ProviderName,
} from './providers/index.js';
export {
  EXTENSION_EVENT_NAMES,
  headlessUI,
  type BeforeToolCallHandler,
  type Extension,
  type ExtensionAgent,
  type ExtensionAPI,
  type ExtensionCommand,
  type ExtensionContext,
  type ExtensionEventHandler,
  type ExtensionEventName,
  type ExtensionSession,
  type ExtensionToolCallContext,
  type ExtensionUI,
  type NoticeLevel,
} from './extensions/api.js';
export {
  ExtensionHost,
  extensionAgent,
  type ExtensionFailure,
  type ExtensionHostOptions,
  type ExtensionRecord,
  type ExtensionSource,
  type RegisteredCommand,
} from './extensions/host.js';
