/**
 * `@panto/core`: everything — what `@panto/core/agent-kit` holds (the agent, its conversation,
 * tools, messages, errors and ids, the model catalog, providers by name), and besides it the
 * providers' own classes, the stores, the extension host and the rest of the vocabulary.
 * Each name is listed once: agent-kit's here by `export *`, the others below.
 */
export * from './agent-kit.js';
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
export type { RedactedThinkingBlock, Role, SystemMessage, SystemMode, ThinkingBlock } from './messages.js';
export { AnthropicMessagesProvider, type AnthropicMessagesOptions } from './providers/anthropic-messages.js';
export { BedrockConverseProvider, type BedrockConverseOptions, type BedrockCredentials } from './providers/bedrock.js';
export { createProvider } from './providers/factory.js';
export { OfflineProvider, type OfflineProviderOptions } from './providers/offline.js';
export { OpenAIChatProvider, type OpenAIChatOptions } from './providers/openai-chat.js';
export type { ProviderEndEvent, ProviderStreamEvent } from './providers/provider.js';
export { SESSION_FORMAT_VERSION, type SessionHeader } from './session/format.js';
export type { AppendOptions, DiskCompactionRecord, DiskMessage, LeafEntry, LoadedSession, LoadOptions, ReadNote, RecordEntry } from './session/records.js';
export type { FileLockOptions } from './stores/file-lock.js';
export { findMostRecentSession, listSessions, resolveSessionId, sessionInfo, type SessionInfo } from './stores/fs-catalog.js';
export { FSJSONLStore, type FSJSONLStoreCreateOptions, type FSJSONLStoreOpenOptions } from './stores/fs-jsonl-store.js';
export { MemoryStore, type MemoryStoreOptions } from './stores/memory-store.js';
export { NullStore } from './stores/null-store.js';
export type { BeforeToolCall, ToolCallDecision, ToolContext, ToolInputSchema } from './tool.js';
