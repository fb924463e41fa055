/**
 * The OpenTelemetry GenAI semantic conventions panto follows (semantic-conventions 1.37+,
 * where `gen_ai.provider.name` replaced `gen_ai.system`). They are "development" status, so
 * `@opentelemetry/semantic-conventions` exports them only from its `incubating` entry point,
 * which its authors ask users to copy rather than import: copied here, the one place.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  /** All input tokens, cached ones included (panto's `input_tokens` leaves them out: added here). */
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  // Content: opt-in (PANTO_TRACE_CONTENT=1), JSON strings as the conventions allow on spans.
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
} as const;

/** `gen_ai.operation.name` values. */
export const OPERATION = { chat: 'chat', executeTool: 'execute_tool', invokeAgent: 'invoke_agent' } as const;

/** The agent's name on `invoke_agent` spans. */
export const AGENT_NAME = 'panto';

/** panto's provider names as `gen_ai.provider.name` knows them; others go as they are. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = { anthropic: 'anthropic', openai: 'openai', bedrock: 'aws.bedrock' };

export function genAIProvider(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}
