/**
 * `@panto/core/agent-kit`: what a host that runs agents needs, and nothing it may not — the
 * agent, its conversation, tools, messages, errors and ids, the model catalog, and providers
 * by name through `deferredProvider`, whose code is loaded at the first call. Unlike the
 * package's root, it reaches none of the providers' code, the MCP client, the filesystem
 * stores or the extension host: a bundle that imports it (a Lambda function) evaluates none
 * of them at a cold start.
 */
export {
  Agent,
  type AgentConfig,
  type AgentOptions,
  type CompactionResult,
  type ResumedAgent,
  type ResumeOptions,
  type RunOptions,
} from './agent/agent.js';
export { anySignal } from './any-signal.js';
export { DEFAULT_COMPACTION_PROMPT } from './agent/compaction.js';
export { denialResult, pendingApprovals, type ApprovalDecision, type PendingApproval } from './approvals.js';
export type { AgentEvent, Receiver, StepResult } from './agent/events.js';
export { Conversation } from './conversation.js';
export * from './errors.js';
export { addSecret, redactError, redactSecrets } from './redact.js';
export { MAX_CALL_TOKENS, saneUsage } from './providers/sane-usage.js';
export { ID_RULE, isValidId, newId, systemClock, type Clock, type IdGenerator } from './ids.js';
export { exceedsJSONDepth, MAX_ENTRY_DEPTH, MAX_JSON_DEPTH, tooDeepReason } from './json-limits.js';
export { addUsage, assistantText, effectiveSystemPrompt, emptyUsage, messageUsage, STOP_REASONS, toolCalls } from './messages.js';
export type {
  ApprovalRequest,
  AssistantBlock,
  AssistantMessage,
  CompactionMessage,
  ImageBlock,
  JsonValue,
  Message,
  StopReason,
  TextBlock,
  ToolCallBlock,
  ToolResultMessage,
  Usage,
  UserMessage,
} from './messages.js';
export { DEFAULT_BEDROCK_MODEL } from './providers/bedrock-models.js';
export { deferredProvider, type DeferredProvider } from './providers/deferred.js';
export type { CreateProviderOptions } from './providers/factory.js';
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
} from './providers/models.js';
export type { ModelInfo, ModelPrices, ModelStatus } from './providers/model-info.js';
export { defaultProviderName, PROVIDER_CREDENTIAL_VARIABLES, PROVIDER_NAMES, type ProviderName } from './providers/names.js';
export type { Provider, ProviderCallOptions, ProviderEvent, ProviderRequest } from './providers/provider.js';
export type { ActiveModel, DiskApprovalRecord, DiskMessageRecord, SessionEntry } from './session/records.js';
export type { SessionStore } from './session/store.js';
export { acceptsPrompt, entryPreview, PREVIEW_LENGTH, SessionTree } from './session/tree.js';
export { ToolRegistry, type Tool, type ToolApproval, type ToolDefinition, type ToolOutput } from './tool.js';
