/**
 * One assistant answer as the AI SDK's UI message chunks: from a running turn's events (`POST
 * /chat`), or from what a turn stored and its partial answer (`GET /chat/{id}/stream`, which
 * replays a running turn from its start). A provider call is a step (`start-step` …
 * `finish-step`); text and reasoning are streamed parts; a tool call is a `dynamic-tool` part
 * (input, then output, error or denial); a call that waits for a person is a
 * `tool-approval-request` whose `approvalId` is the call's id.
 */
import type { AgentEvent, DiskApprovalRecord, Message, StopReason, Usage } from '@panto/core';
import { addUsage, emptyUsage, usageCost } from '@panto/core/agent-kit';
import type { FinishReason, UIMessageChunk } from 'ai';
import type { ChatMetadata } from './ui-messages.js';

export type ChatChunk = UIMessageChunk<ChatMetadata>;

/** Writes chunks to the stream. Must not throw (the AI SDK's writer drops writes to a closed stream). */
export type ChunkSink = (chunk: ChatChunk) => void;

export class AnswerChunks {
  readonly #write: ChunkSink;
  #step = false;
  #call = 0;
  /** The tool calls of the current provider call, by the provider's block index. */
  #calls = new Map<number, string>();
  #denied = new Set<string>();
  /** A running answer's text sent from the partial answer, not yet stored. */
  #partial: { id: string; text: string } | null = null;
  #usage: Usage = emptyUsage();
  #cost: number | null = 0;
  #stopReason: StopReason | undefined;

  constructor(write: ChunkSink) {
    this.#write = write;
  }

  /** The message's start: `messageId` for a new message (see `answerId`); a continued one keeps its id. */
  start(metadata: ChatMetadata, messageId?: string): void {
    this.#write({ type: 'start', ...(messageId === undefined ? {} : { messageId }), messageMetadata: metadata });
  }

  /** A running turn's event. */
  receive(event: AgentEvent): void {
    const id = (index: number): string => `${this.#call}-${index}`;
    switch (event.type) {
      case 'message-start':
        this.#openStep();
        return;
      case 'text-start':
      case 'text-end':
        this.#write({ type: event.type, id: id(event.index) });
        return;
      case 'text-delta':
        this.#write({ type: 'text-delta', id: id(event.index), delta: event.delta });
        return;
      case 'thinking-start':
        this.#write({ type: 'reasoning-start', id: id(event.index) });
        return;
      case 'thinking-delta':
        this.#write({ type: 'reasoning-delta', id: id(event.index), delta: event.delta });
        return;
      case 'thinking-end':
        this.#write({ type: 'reasoning-end', id: id(event.index) });
        return;
      case 'tool-call-start':
        this.#calls.set(event.index, event.id);
        this.#write({ type: 'tool-input-start', toolCallId: event.id, toolName: event.name, dynamic: true });
        return;
      case 'tool-call-delta': {
        const toolCallId = this.#calls.get(event.index);
        if (toolCallId !== undefined) this.#write({ type: 'tool-input-delta', toolCallId, inputTextDelta: event.delta });
        return;
      }
      case 'tool-call-end':
        this.#write({
          type: 'tool-input-available',
          toolCallId: event.toolCall.id,
          toolName: event.toolCall.name,
          input: event.toolCall.input,
          dynamic: true,
        });
        return;
      case 'message-end':
        this.#count(event.message);
        return;
      case 'entries-persisted':
        // The calls that wait are known once the message is stored with them (the agent marks them).
        for (const record of event.records) if (record.type === 'message' && record.message.role === 'assistant') this.#asks(record.message);
        return;
      case 'tool-execution-end':
        this.#output(event.result);
        return;
      default:
        return;
    }
  }

  /** A message as stored (a replayed turn): an answer in full, a tool's result; a prompt is no part of an answer. */
  stored(message: Message): void {
    if (message.role === 'tool_result') {
      this.#output(message);
      return;
    }
    if (message.role !== 'assistant') return;
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const partial = this.#partial;
    if (partial === null) this.#openStep();
    else {
      // The running answer was sent as it was stored so far: send the rest, then what is not text.
      if (text.startsWith(partial.text) && text.length > partial.text.length)
        this.#write({ type: 'text-delta', id: partial.id, delta: text.slice(partial.text.length) });
      this.#write({ type: 'text-end', id: partial.id });
      this.#partial = null;
    }
    message.content.forEach((block, index) => {
      const id = `${this.#call}-${index}`;
      if (block.type === 'thinking') {
        this.#write({ type: 'reasoning-start', id });
        this.#write({ type: 'reasoning-delta', id, delta: block.thinking });
        this.#write({ type: 'reasoning-end', id });
      } else if (block.type === 'text' && partial === null) {
        this.#write({ type: 'text-start', id });
        this.#write({ type: 'text-delta', id, delta: block.text });
        this.#write({ type: 'text-end', id });
      } else if (block.type === 'tool_call') {
        this.#write({ type: 'tool-input-available', toolCallId: block.id, toolName: block.name, input: block.input, dynamic: true });
      }
    });
    this.#asks(message);
    this.#count(message);
  }

  /** The answer of a running turn so far (the text of its current provider call, as last stored). */
  partial(text: string): void {
    if (this.#partial === null) {
      this.#openStep();
      this.#partial = { id: `${this.#call}-partial`, text: '' };
      this.#write({ type: 'text-start', id: this.#partial.id });
    }
    const partial = this.#partial;
    if (!text.startsWith(partial.text) || text.length === partial.text.length) return;
    this.#write({ type: 'text-delta', id: partial.id, delta: text.slice(partial.text.length) });
    partial.text = text;
  }

  /** Decisions that resumed a paused turn: each denied call is shown denied (an approved one shows its output when it runs). */
  decided(record: DiskApprovalRecord): void {
    for (const decision of record.decisions) {
      if (decision.decision !== 'deny') continue;
      this.#denied.add(decision.tool_call_id);
      this.#write({ type: 'tool-output-denied', toolCallId: decision.tool_call_id });
    }
  }

  /** A failure, as the stream's error part: panto's error body (`{ "error": { "code", "message" } }`) as its text. */
  error(body: object): void {
    this.#write({ type: 'error', errorText: JSON.stringify(body) });
  }

  /** The answer's end: its last step closed, then `finish` with what it used and cost and why it stopped. */
  finish(metadata: ChatMetadata, stopReason: StopReason | undefined = this.#stopReason): void {
    if (this.#partial !== null) this.#write({ type: 'text-end', id: this.#partial.id });
    this.#partial = null;
    if (this.#step) this.#write({ type: 'finish-step' });
    this.#step = false;
    this.#write({
      type: 'finish',
      ...(stopReason === undefined ? {} : { finishReason: finishReason(stopReason) }),
      messageMetadata: { usage: this.#usage, cost_usd: this.#cost, ...(stopReason === undefined ? {} : { stop_reason: stopReason }), ...metadata },
    });
  }

  #openStep(): void {
    if (this.#step) this.#write({ type: 'finish-step' });
    this.#write({ type: 'start-step' });
    this.#step = true;
    this.#call++;
    this.#calls.clear();
  }

  #asks(message: Extract<Message, { role: 'assistant' }>): void {
    for (const request of message.approval_requests ?? []) {
      this.#write({ type: 'tool-approval-request', approvalId: request.tool_call_id, toolCallId: request.tool_call_id });
    }
  }

  #count(message: Extract<Message, { role: 'assistant' }>): void {
    this.#usage = addUsage(this.#usage, message.usage);
    const cost = usageCost(message.provider, message.model, message.usage);
    this.#cost = this.#cost === null || cost === undefined ? null : this.#cost + cost;
    this.#stopReason = message.stop_reason;
  }

  #output(result: Extract<Message, { role: 'tool_result' }>): void {
    const toolCallId = result.tool_call_id;
    if (this.#denied.has(toolCallId)) {
      this.#write({ type: 'tool-output-denied', toolCallId });
      return;
    }
    if (result.is_error) this.#write({ type: 'tool-output-error', toolCallId, errorText: result.content, dynamic: true });
    else this.#write({ type: 'tool-output-available', toolCallId, output: result.content, dynamic: true });
  }
}

/** The AI SDK's finish reason for panto's stop reason. */
export function finishReason(stopReason: StopReason): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'tool_use':
    case 'awaiting_approval':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    case 'error':
      return 'error';
    case 'aborted':
      return 'other';
    default:
      return stopReason satisfies never;
  }
}
