/**
 * A session's path as the AI SDK's `UIMessage[]` (`GET /chat/{id}`, what `useChat` takes as its
 * initial `messages`). A prompt is a user message whose id is its entry's; everything after it
 * up to the next prompt — the model's messages, its tool calls, their results and the
 * decisions on them — is one assistant message (the SDK's steps), whose id is its first
 * entry's. Tool calls are `dynamic-tool` parts: the page does not know the server's tools.
 */
import type { AssistantMessage, DiskApprovalRecord, RecordEntry, SessionTree, ToolResultMessage, Usage } from '@panto/core';
import { addUsage, emptyUsage, usageCost } from '@panto/core/agent-kit';
import type { DynamicToolUIPart, UIMessage } from 'ai';

/** What panto puts in an assistant message's `metadata`: the session, and what the answer cost. */
export interface ChatMetadata {
  session_id?: string;
  /** The tokens of every provider call of the answer. */
  usage?: Usage;
  /** What those calls cost in US dollars; null when a model's price is unknown. */
  cost_usd?: number | null;
  stop_reason?: string;
  incomplete?: boolean;
  incomplete_reason?: string;
}

export type ChatMessage = UIMessage<ChatMetadata>;

/**
 * The id of the assistant message that answers the prompt `promptId`: known when the prompt is
 * stored, so the live stream, a resumed one and `GET /chat/{id}` all give the answer the same
 * id (the SDK continues a message by its id, and would show a second one under another).
 */
export function answerId(promptId: string): string {
  return `${promptId}:answer`;
}

/**
 * The messages of the session's active path. While a turn runs (`runningFrom`: the log index
 * of the entry that opened it), what it wrote after its opening is left out: the resumed stream
 * (`GET /chat/{id}/stream`) sends it, from the start.
 */
export function chatMessages(tree: SessionTree, runningFrom: number | null): ChatMessage[] {
  const end = tree.load().at;
  if (end === null) return [];
  const index = new Map(tree.entries.map((entry, i) => [entry.id, i]));
  const path = tree.pathTo(end.id).filter((entry) => runningFrom === null || (index.get(entry.id) ?? 0) <= runningFrom);
  const builder = new ChatBuilder();
  for (const entry of path) builder.add(entry);
  return builder.messages;
}

/** Builds the messages entry by entry, in path order. */
class ChatBuilder {
  readonly messages: ChatMessage[] = [];
  #answer: { message: ChatMessage; usage: Usage; cost: number | null } | null = null;
  #prompt: string | null = null;

  add(entry: RecordEntry): void {
    if (entry.type === 'approval') {
      this.#decided(entry);
      return;
    }
    if (entry.type !== 'message') return;
    const { message } = entry;
    switch (message.role) {
      case 'user':
        this.#answer = null;
        this.#prompt = entry.id;
        this.messages.push({ id: entry.id, role: 'user', parts: [{ type: 'text', text: message.content }] });
        return;
      case 'assistant':
        this.#assistant(entry.id, message);
        return;
      case 'tool_result':
        this.#result(message);
        return;
      case 'system':
        return;
      default:
        message satisfies never;
    }
  }

  #assistant(id: string, message: AssistantMessage): void {
    if (this.#answer === null) {
      const messageId = this.#prompt === null ? id : answerId(this.#prompt);
      this.#answer = { message: { id: messageId, role: 'assistant', parts: [], metadata: {} }, usage: emptyUsage(), cost: 0 };
      this.messages.push(this.#answer.message);
    }
    const answer = this.#answer;
    answer.message.parts.push({ type: 'step-start' });
    const asks = new Set((message.approval_requests ?? []).map((request) => request.tool_call_id));
    for (const block of message.content) {
      if (block.type === 'text') answer.message.parts.push({ type: 'text', text: block.text, state: 'done' });
      else if (block.type === 'thinking') answer.message.parts.push({ type: 'reasoning', text: block.thinking, state: 'done' });
      else if (block.type === 'tool_call') {
        const base = { type: 'dynamic-tool' as const, toolName: block.name, toolCallId: block.id, input: block.input };
        answer.message.parts.push(
          asks.has(block.id) ? { ...base, state: 'approval-requested', approval: { id: block.id } } : { ...base, state: 'input-available' },
        );
      }
    }
    answer.usage = addUsage(answer.usage, message.usage);
    const cost = usageCost(message.provider, message.model, message.usage);
    answer.cost = answer.cost === null || cost === undefined ? null : answer.cost + cost;
    answer.message.metadata = { usage: answer.usage, cost_usd: answer.cost, stop_reason: message.stop_reason };
  }

  #result(result: ToolResultMessage): void {
    this.#replace(result.tool_call_id, (part) => {
      if (part.state === 'output-denied') return part;
      const approval = part.approval?.approved === true ? { approval: { id: part.approval.id, approved: true as const } } : {};
      return result.is_error
        ? { ...toolBase(part), state: 'output-error', errorText: result.content, ...approval }
        : { ...toolBase(part), state: 'output-available', output: result.content, ...approval };
    });
  }

  #decided(record: DiskApprovalRecord): void {
    for (const { tool_call_id: id, decision, reason } of record.decisions) {
      this.#replace(id, (part) =>
        decision === 'approve'
          ? { ...toolBase(part), state: 'approval-responded', approval: { id, approved: true } }
          : { ...toolBase(part), state: 'output-denied', approval: { id, approved: false, ...(reason === undefined ? {} : { reason }) } },
      );
    }
  }

  /** Replaces the tool part of call `id` in the answer being built (a result for no call shown is left out). */
  #replace(id: string, next: (part: DynamicToolUIPart) => DynamicToolUIPart): void {
    const parts = this.#answer?.message.parts ?? [];
    const at = parts.findLastIndex((part) => part.type === 'dynamic-tool' && part.toolCallId === id);
    const part = parts[at];
    if (part?.type === 'dynamic-tool') parts[at] = next(part);
  }
}

/** A tool part without its state's fields. */
function toolBase(part: DynamicToolUIPart): { type: 'dynamic-tool'; toolName: string; toolCallId: string; input: unknown } {
  return { type: 'dynamic-tool', toolName: part.toolName, toolCallId: part.toolCallId, input: part.input };
}
