/**
 * `-p --output-format json|stream-json`: what a script reads from stdout. `json` is one
 * object (the {@link ResultObject}) once the turn is over; `stream-json` is one object per
 * line for each event of the turn ({@link StreamEvent}), the result object last. The shapes
 * are documented in docs/cli.md; fields are snake_case, as the session format's.
 */
import { assistantText, type AgentEvent, type Receiver, type StepResult, type StopReason, type Usage } from '@panto/core';
import { messagesCost } from '../agent/model-catalog.js';
import type { TurnResult } from './running-agent.js';

/** What `--output-format json` prints, and the last line of `stream-json`. */
export interface ResultObject {
  type: 'result';
  /** The text of the last assistant message: the answer. */
  answer: string;
  /** The same text, under the name `claude -p --output-format json` gives it. */
  result: string;
  session_id: string;
  /** The entry id of the prompt: what `panto -r <session> --rewind <prompt id>` takes. */
  prompt_id: string;
  stop_reason: StopReason;
  /** True when the turn failed (`stop_reason` `error` or `aborted`); `error` says why. */
  is_error: boolean;
  /** True when the model had not finished (cut short, or stopped after too many calls). */
  incomplete: boolean;
  usage: Usage;
  /** List prices of the turn's calls; `unpriced` names the `provider/model`s panto has no prices for. */
  cost: { usd: number; unpriced: string[] };
  provider_calls: number;
  error?: string;
}

/** One line of `--output-format stream-json` before the result. */
export type StreamEvent =
  | { type: 'start'; session_id: string; prompt_id: string }
  | { type: 'message_start'; provider: string; model: string }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; id: string; name: string; is_error: boolean; content: string }
  | { type: 'message_end'; stop_reason: StopReason; usage: Usage }
  | { type: 'compaction'; summary: string }
  | { type: 'error'; message: string };

/** The result object of a finished turn. */
export function resultObject(result: TurnResult, sessionId: string, answer: string): ResultObject {
  const cost = messagesCost(result.messages);
  const failed = result.stopReason === 'error' || result.stopReason === 'aborted';
  return {
    type: 'result',
    answer,
    result: answer,
    session_id: sessionId,
    prompt_id: result.promptId,
    stop_reason: result.stopReason,
    is_error: failed,
    incomplete: result.incomplete,
    usage: result.usage,
    cost: { usd: cost.dollars, unpriced: cost.unpriced },
    provider_calls: result.providerCalls,
    ...(result.error === undefined ? {} : { error: result.error.message }),
  };
}

/** The event's line of `stream-json`, or undefined for events that have none. */
export function streamEvent(event: AgentEvent): StreamEvent | undefined {
  switch (event.type) {
    case 'message-start':
      return { type: 'message_start', provider: event.provider, model: event.model };
    case 'text-delta':
      return { type: 'text_delta', text: event.delta };
    case 'thinking-delta':
      return { type: 'thinking_delta', text: event.delta };
    case 'tool-execution-start':
      return { type: 'tool_call', id: event.toolCall.id, name: event.toolCall.name, input: event.toolCall.input };
    case 'tool-execution-end':
      return { type: 'tool_result', id: event.toolCall.id, name: event.toolCall.name, is_error: event.result.is_error === true, content: event.result.content };
    case 'message-end':
      return { type: 'message_end', stop_reason: event.message.stop_reason, usage: event.message.usage };
    case 'compaction-end':
      return { type: 'compaction', summary: event.summary };
    case 'error':
      return { type: 'error', message: event.error.message };
    default:
      return undefined;
  }
}

/** A receiver that writes each event's line (see {@link streamEvent}) with `writeLine`; the first line is `start`. */
export function streamJsonReceiver(sessionId: string, promptId: string, writeLine: (line: string) => void): Receiver {
  writeLine(JSON.stringify({ type: 'start', session_id: sessionId, prompt_id: promptId } satisfies StreamEvent));
  return (event) => {
    const line = streamEvent(event);
    if (line !== undefined) writeLine(JSON.stringify(line));
  };
}

/** The text of the step's last assistant message: the answer, without what came before tool calls. */
export function finalAnswer(result: StepResult): string {
  for (let i = result.messages.length - 1; i >= 0; i--) {
    const message = result.messages[i]!;
    if (message.role === 'assistant') return assistantText(message);
  }
  return '';
}
