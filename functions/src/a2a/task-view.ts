/**
 * A task as its session's log tells it. A task is one turn: the user prompt that opened it and
 * everything stored after it up to the next prompt — the model's messages, tool results, the
 * decisions that resumed it after a pause for approval. Nothing else stores a task: any
 * process (any Lambda instance) reads the same task from the same log, whichever one ran it.
 */
import { type Message as A2AMessage, type Task, TaskState, type TaskStatus } from '@a2a-js/sdk';
import type { RecordEntry } from '@panto/core';
import { type AssistantMessage, type PendingApproval, pendingApprovals, type SessionTree } from '@panto/core/agent-kit';
import { a2aMessage, answerArtifact, dataPart, textPart } from './a2a-parts.js';
import { taskIdOf } from './task-id.js';

/** A turn's entries in the log, and what a read of the session says of it. */
export interface TaskSpan {
  sessionId: string;
  taskId: string;
  /** The prompt's entry first, then every entry that followed it up to the next prompt. */
  entries: RecordEntry[];
  /** Whether the turn still runs (it holds the session's lease). */
  running: boolean;
  /** The tool calls it waits on (it paused for approval), in the model's order. */
  pending: PendingApproval[];
}

/**
 * The turn that prompt entry `promptId` opened; null when the session holds no such prompt.
 * On the active branch it runs to the active leaf (or the next prompt); on another branch,
 * along the newest entries below the prompt. `running`: whether a turn holds the session's
 * lease — it is this task's when the active leaf is in its span.
 */
export function taskSpan(tree: SessionTree, sessionId: string, promptId: string, running: boolean): TaskSpan | null {
  const prompt = tree.get(promptId);
  if (prompt?.type !== 'message' || prompt.message.role !== 'user') return null;
  const active = tree.activeLeaf === null ? [] : tree.pathTo(tree.activeLeaf);
  const onActive = active.findIndex((entry) => entry.id === promptId);
  const entries: RecordEntry[] = [prompt];
  const isPrompt = (entry: RecordEntry): boolean => entry.type === 'message' && entry.message.role === 'user';
  if (onActive >= 0) {
    for (const entry of active.slice(onActive + 1)) {
      if (isPrompt(entry)) break;
      entries.push(entry);
    }
  } else {
    for (let next = tree.children(promptId).at(-1); next !== undefined && !isPrompt(next); next = tree.children(next.id).at(-1)) entries.push(next);
  }
  const last = entries.at(-1)!;
  const runs = running && tree.activeLeaf !== null && tree.resolve(tree.activeLeaf).id === last.id;
  return {
    sessionId,
    taskId: taskIdOf(sessionId, promptId),
    entries,
    running: runs,
    pending: runs ? [] : pendingApprovals(tree.load(last.id).conversation.messages),
  };
}

/** Where a turn that ended stands, as its last entries tell it. */
export function spanState(span: TaskSpan): { state: TaskState; reason: string | null } {
  if (span.running) return { state: TaskState.TASK_STATE_WORKING, reason: null };
  if (span.pending.length > 0) return { state: TaskState.TASK_STATE_INPUT_REQUIRED, reason: null };
  const last = span.entries.at(-1)!;
  if (last.type !== 'message') return { state: TaskState.TASK_STATE_FAILED, reason: 'the turn ended without an answer' };
  const message = last.message;
  switch (message.role) {
    case 'assistant':
      return assistantState(message);
    case 'user':
      // The prompt alone, and no turn running: the model call failed before any answer (or the turn was stopped first).
      return {
        state: TaskState.TASK_STATE_FAILED,
        reason: 'the turn ended without an answer: the model call failed, or the turn was stopped before it answered',
      };
    case 'tool_result':
      return { state: TaskState.TASK_STATE_CANCELED, reason: 'the turn stopped between tool calls and the next model call' };
    default:
      return { state: TaskState.TASK_STATE_COMPLETED, reason: null };
  }
}

function assistantState(message: AssistantMessage): { state: TaskState; reason: string | null } {
  switch (message.stop_reason) {
    case 'aborted':
      return { state: TaskState.TASK_STATE_CANCELED, reason: message.error_message ?? 'the turn was stopped' };
    case 'error':
      return { state: TaskState.TASK_STATE_FAILED, reason: message.error_message ?? 'the model call failed' };
    default:
      return { state: TaskState.TASK_STATE_COMPLETED, reason: null };
  }
}

/** The text the model wrote in the turn: every assistant message's text, in order, a blank line between. */
export function answerText(entries: readonly RecordEntry[]): string {
  const texts: string[] = [];
  for (const entry of entries) {
    if (entry.type !== 'message' || entry.message.role !== 'assistant') continue;
    const text = entry.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    if (text !== '') texts.push(text);
  }
  return texts.join('\n\n');
}

/** The task the span is: its status, its history (the prompt and the model's messages with text), its answer as an artifact. */
export function taskOf(span: TaskSpan, options: { historyLength?: number | undefined; timestamp?: string } = {}): Task {
  const ids = { contextId: span.sessionId, taskId: span.taskId };
  const history: A2AMessage[] = [];
  for (const entry of span.entries) {
    if (entry.type !== 'message') continue;
    const { message } = entry;
    if (message.role === 'user') history.push(a2aMessage('user', { ...ids, messageId: entry.id }, [textPart(message.content)]));
    if (message.role === 'assistant') {
      const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      if (text !== '') history.push(a2aMessage('agent', { ...ids, messageId: entry.id }, [textPart(text)]));
    }
  }
  const answer = answerText(span.entries);
  const limit = options.historyLength;
  return {
    id: span.taskId,
    contextId: span.sessionId,
    status: statusOf(span, options.timestamp ?? span.entries.at(-1)!.timestamp),
    artifacts: answer === '' ? [] : [answerArtifact(answer)],
    history: limit === undefined ? history : limit <= 0 ? [] : history.slice(-limit),
    metadata: undefined,
  };
}

/** The span's status: its state, and a message saying why it failed or was canceled, or which calls wait for a decision. */
export function statusOf(span: TaskSpan, timestamp: string): TaskStatus {
  const { state, reason } = spanState(span);
  const ids = { contextId: span.sessionId, taskId: span.taskId, messageId: `${span.entries.at(-1)!.id}:status` };
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) return { state, message: approvalRequest(span.pending, ids), timestamp };
  return { state, message: reason === null ? undefined : a2aMessage('agent', ids, [textPart(reason)]), timestamp };
}

/**
 * What a task waiting for approval tells its caller: which calls wait and why (text), the same
 * as `pending_approvals` of the HTTP API (a data part), and how to answer.
 */
export function approvalRequest(pending: readonly PendingApproval[], ids: { contextId: string; taskId: string; messageId: string }): A2AMessage {
  const calls = pending.map(({ toolCall, reason }) => `${toolCall.name} ${JSON.stringify(toolCall.input)} (${reason})`);
  const text =
    `Waiting for your approval of ${calls.length === 1 ? 'a tool call' : `${calls.length} tool calls`}: ${calls.join('; ')}. ` +
    'Answer in this task with "approve" or "deny" (every waiting call), or a data part {"decisions":[{"tool_call_id","decision":"approve"|"deny","reason"?}]}.';
  const json = pending.map(({ toolCall, reason }) => ({ tool_call_id: toolCall.id, tool: toolCall.name, input: toolCall.input, reason }));
  return a2aMessage('agent', ids, [textPart(text), dataPart({ pending_approvals: json })]);
}
