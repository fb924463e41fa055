/**
 * A turn's spans, from the events its agent emits (`agent.subscribe`): `invoke_agent panto`
 * for each step (the turn), `chat <model>` for each provider call — the turn's child, or the
 * request's for a compaction's — and `execute_tool <name>` for each tool call, as the GenAI
 * semantic conventions name them. While a step runs, the store's calls (the appends, the lease
 * renewals) are the turn's children too.
 */
import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Agent, AgentEvent, AssistantMessage, StepResult, ToolCallBlock, ToolResultMessage, Usage } from '@panto/core';
import { redactSecrets } from '@panto/core/agent-kit';
import { inputContent, outputContent, toolContent } from './gen-ai-content.js';
import { AGENT_NAME, GEN_AI, genAIProvider, OPERATION } from './gen-ai.js';
import { type RequestTrace, requestTraces } from './request-trace.js';

/**
 * Follows `agent` for the request being served (nothing outside a request). Never throws:
 * the agent ignores a receiver that does, and persistence goes on.
 */
export function observeAgent(tracer: Tracer, agent: Agent, content: boolean): void {
  const request = requestTraces.getStore();
  if (request === undefined) return;
  const spans = new TurnSpans(tracer, agent, request, content);
  agent.subscribe((event) => spans.on(event));
}

/** The open spans of one agent's work, moved on by its events. */
class TurnSpans {
  #turn: { span: Span; context: Context } | undefined;
  #chat: Span | undefined;
  readonly #tools = new Map<string, Span>();

  constructor(
    private readonly tracer: Tracer,
    private readonly agent: Agent,
    private readonly request: RequestTrace,
    private readonly content: boolean,
  ) {}

  on(event: AgentEvent): void {
    switch (event.type) {
      case 'step-start':
        this.#startTurn();
        break;
      case 'message-start':
        this.#startChat(event.provider, event.model);
        break;
      case 'message-end':
        this.#endChat(event.message);
        break;
      case 'tool-execution-start':
        this.#startTool(event.toolCall);
        break;
      case 'tool-execution-end':
        this.#endTool(event.toolCall, event.result);
        break;
      case 'error':
        // The provider call it ended, if one was running (a failed call emits no message-end).
        this.#closeChat(event.error);
        break;
      case 'step-end':
        this.#endTurn(event.result);
        break;
      default:
        break;
    }
  }

  /** The attributes every GenAI span of this agent carries. */
  #common(provider: string): Attributes {
    return { [GEN_AI.providerName]: genAIProvider(provider), [GEN_AI.conversationId]: this.agent.sessionStore.sessionId() };
  }

  /** Where a chat or tool span goes: under the turn, or (a compaction's) under the request. */
  #parent(): Context {
    return this.#turn?.context ?? this.request.request;
  }

  #startTurn(): void {
    const attributes = {
      [GEN_AI.operationName]: OPERATION.invokeAgent,
      [GEN_AI.agentName]: AGENT_NAME,
      ...this.#common(this.agent.provider.name),
      [GEN_AI.requestModel]: this.agent.provider.model,
    };
    const span = this.tracer.startSpan(`${OPERATION.invokeAgent} ${AGENT_NAME}`, { kind: SpanKind.INTERNAL, attributes }, this.request.request);
    this.#turn = { span, context: trace.setSpan(this.request.request, span) };
    // The store's calls from here to the step's end (appends, renewals) are the turn's.
    this.request.current = this.#turn.context;
  }

  #startChat(provider: string, model: string): void {
    this.#closeChat();
    const attributes = {
      [GEN_AI.operationName]: OPERATION.chat,
      ...this.#common(provider),
      [GEN_AI.requestModel]: model,
      ...(this.content ? inputContent(this.agent.conversation.messages) : {}),
    };
    this.#chat = this.tracer.startSpan(`${OPERATION.chat} ${model}`, { kind: SpanKind.CLIENT, attributes }, this.#parent());
  }

  #endChat(answer: AssistantMessage): void {
    this.#chat?.setAttributes({ ...answerAttributes(answer), ...(this.content ? outputContent(answer) : {}) });
    if (answer.stop_reason === 'error') this.#chat?.setStatus({ code: SpanStatusCode.ERROR, ...message(answer.error_message) });
    this.#closeChat();
  }

  #closeChat(error?: Error): void {
    if (this.#chat === undefined) return;
    if (error !== undefined) failed(this.#chat, error);
    this.#chat.end();
    this.#chat = undefined;
  }

  #startTool(call: ToolCallBlock): void {
    this.#tools.get(call.id)?.end();
    const attributes = { [GEN_AI.operationName]: OPERATION.executeTool, [GEN_AI.toolName]: call.name, [GEN_AI.toolCallId]: call.id };
    this.#tools.set(call.id, this.tracer.startSpan(`${OPERATION.executeTool} ${call.name}`, { kind: SpanKind.INTERNAL, attributes }, this.#parent()));
  }

  #endTool(call: ToolCallBlock, result: ToolResultMessage): void {
    const span = this.#tools.get(call.id);
    if (span === undefined) return;
    this.#tools.delete(call.id);
    if (this.content) span.setAttributes(toolContent(call.input, result));
    if (result.is_error) span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute('error.type', 'tool_error');
    span.end();
  }

  #endTurn(result: StepResult): void {
    this.#closeChat();
    for (const span of this.#tools.values()) span.end();
    this.#tools.clear();
    const turn = this.#turn;
    this.#turn = undefined;
    this.request.current = this.request.request;
    if (turn === undefined) return;
    turn.span.setAttributes({
      ...usageAttributes(result.usage),
      [GEN_AI.finishReasons]: [result.stopReason],
      'panto.provider_calls': result.providerCalls,
      'panto.incomplete': result.incomplete,
    });
    // An abort (a stop, a deadline) is no error; a provider's failure is.
    if (result.stopReason === 'error' && result.error !== undefined) failed(turn.span, result.error);
    turn.span.end();
  }
}

/** What a provider call's answer adds to its span. */
function answerAttributes(answer: AssistantMessage): Attributes {
  return { [GEN_AI.responseModel]: answer.model, [GEN_AI.finishReasons]: [answer.raw_stop_reason ?? answer.stop_reason], ...usageAttributes(answer.usage) };
}

/** panto's four disjoint counts as the conventions count them: input includes the cached tokens. */
function usageAttributes(usage: Usage): Attributes {
  return {
    [GEN_AI.inputTokens]: usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
    [GEN_AI.outputTokens]: usage.output_tokens,
    [GEN_AI.cacheReadTokens]: usage.cache_read_tokens,
    [GEN_AI.cacheCreationTokens]: usage.cache_write_tokens,
  };
}

function failed(span: Span, error: Error): void {
  span.setAttribute('error.type', error.name);
  span.setStatus({ code: SpanStatusCode.ERROR, ...message(error.message) });
}

/** A span's status message: no credential a provider's words quoted. */
function message(text: string | undefined): { message?: string } {
  return text === undefined ? {} : { message: redactSecrets(text) };
}
