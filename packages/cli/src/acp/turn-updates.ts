/**
 * A turn's events as ACP `session/update`s: text and thinking as message and thought chunks;
 * each tool call as a `tool_call` (pending, from the moment the model names it), updated
 * with its input, files and diff once the model finished it, `in_progress` once it passed
 * the approvals, then `completed` or `failed` with its result.
 */
import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type { AgentEvent, Receiver, ToolCallBlock } from '@panto/core';
import { contentAfterRun, contentBeforeRun, contentOfCall, toolKind, toolLocations, toolTitle } from './tool-calls.js';

/**
 * Sends one update to the client, after those sent before (an update still being worked out
 * holds back the ones after it). Must not throw.
 */
export type SendUpdate = (update: SessionUpdate | Promise<SessionUpdate>) => void;

/**
 * The updates of one session's turns. `receiver` is the turn's event receiver; `describe`
 * is what a permission request shows; `starting` is sent when a call is about to run.
 *
 * @example
 * const updates = new TurnUpdates(send, cwd);
 * await running.turn(text, { observe: () => updates.receiver, signal });
 */
export class TurnUpdates {
  readonly #send: SendUpdate;
  readonly #cwd: string;
  /** Calls the client has been told of (a `tool_call` was sent). */
  readonly #announced = new Set<string>();
  /** What each call shows before it runs (a `write`'s diff reads the file: once, before it is written). */
  readonly #content = new Map<string, Promise<ToolCallContent[]>>();

  constructor(send: SendUpdate, cwd: string) {
    this.#send = send;
    this.#cwd = cwd;
  }

  /** The turn's receiver. Never throws. */
  readonly receiver: Receiver = (event: AgentEvent) => {
    switch (event.type) {
      case 'text-delta':
        this.#send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.delta } });
        return;
      case 'thinking-delta':
        this.#send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.delta } });
        return;
      case 'tool-call-start':
        this.#announced.add(event.id);
        this.#send({ sessionUpdate: 'tool_call', toolCallId: event.id, title: event.name, kind: toolKind(event.name), status: 'pending' });
        return;
      case 'tool-call-end':
        this.#detail(event.toolCall);
        return;
      case 'tool-execution-start':
        if (!this.#announced.has(event.toolCall.id)) this.#detail(event.toolCall);
        return;
      case 'tool-execution-end': {
        const { toolCall, result } = event;
        this.#send(
          this.#contentOf(toolCall).then((before) => ({
            sessionUpdate: 'tool_call_update',
            toolCallId: toolCall.id,
            status: result.is_error ? 'failed' : 'completed',
            content: contentAfterRun(toolCall, result, before),
            rawOutput: { content: result.content, is_error: result.is_error },
          })),
        );
        return;
      }
      case 'step-start':
      case 'message-start':
      case 'text-start':
      case 'text-end':
      case 'thinking-start':
      case 'thinking-end':
      case 'tool-call-delta':
      case 'message-end':
      case 'entries-persisted':
      case 'error':
      case 'step-end':
      case 'compaction-start':
      case 'compaction-end':
        return;
      default: {
        const unexpected: never = event;
        return unexpected;
      }
    }
  };

  /** The call as a permission request shows it. */
  async describe(call: ToolCallBlock): Promise<ToolCallUpdate> {
    return { ...this.#shown(call), status: 'pending', content: await this.#contentOf(call) };
  }

  /** The update that says the call runs now (with its diff, read before the call writes). */
  async starting(call: ToolCallBlock): Promise<SessionUpdate> {
    return { sessionUpdate: 'tool_call_update', toolCallId: call.id, status: 'in_progress', content: await this.#contentOf(call) };
  }

  /** The model finished the call: its title, input, files, and what shows without reading a file. */
  #detail(call: ToolCallBlock): void {
    const content = contentBeforeRun(call, this.#cwd);
    const shown = { ...this.#shown(call), ...(content.length > 0 ? { content } : {}) };
    if (this.#announced.has(call.id)) {
      this.#send({ sessionUpdate: 'tool_call_update', ...shown });
      return;
    }
    this.#announced.add(call.id);
    this.#send({ sessionUpdate: 'tool_call', ...shown, status: 'pending' });
  }

  #shown(call: ToolCallBlock): { toolCallId: string; title: string; kind: ToolKind; rawInput: unknown; locations: ToolCallLocation[] } {
    return { toolCallId: call.id, title: toolTitle(call), kind: toolKind(call.name), rawInput: call.input, locations: toolLocations(call, this.#cwd) };
  }

  #contentOf(call: ToolCallBlock): Promise<ToolCallContent[]> {
    let content = this.#content.get(call.id);
    if (content === undefined) {
      // contentOfCall reports what it cannot read in the content itself; a rejection would be a bug, shown as no diff.
      content = contentOfCall(call, this.#cwd).catch(() => contentBeforeRun(call, this.#cwd));
      this.#content.set(call.id, content);
    }
    return content;
  }
}
