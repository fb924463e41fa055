/** How sessions, their messages and their entries are answered, by every route that returns them. */
import type { DiskApprovalRecord, DiskMessage, DiskMessageRecord, Message, PendingApproval, SessionEntry } from '@panto/core';
import type { PartialAnswer } from '@panto/aws/service';
import { acceptsPrompt, addUsage, emptyUsage } from '@panto/core/agent-kit';
import type {
  ApprovalEntryJson,
  EntryJson,
  PartialAnswerJson,
  PendingApprovalJson,
  RunningTurnJson,
  SessionContentsJson,
  SessionSummaryJson,
  StoredMessageJson,
} from '../api/response-schemas.js';
import type { RunningTurn, SessionContents, SessionSummary } from '../services/session-context.js';
import { withoutFraming } from '@panto/core/store-kit';

export function sessionJson({ metadata, activeModel }: SessionSummary): SessionSummaryJson {
  return {
    id: metadata.id,
    created_at: metadata.createdAt,
    updated_at: metadata.updatedAt,
    active_model: activeModel,
    title: metadata.title,
    entry_count: metadata.entryCount,
    archived: metadata.archived,
  };
}

/** `GET /sessions/{id}` (and a leaf switch): the conversation as the next turn sees it, with what answering each prompt used. */
export function contentsJson(contents: SessionContents): SessionContentsJson {
  return {
    id: contents.id,
    messages: contents.messages.map((message, i) => withEntry(message, contents.entries[i] ?? null)),
    dangling_user: contents.danglingUser,
    active_model: contents.activeModel,
    usage: contents.usage,
    turns: turnsJson(contents),
    entry_count: contents.entryCount,
    turn: runningTurnJson(contents.turn),
    pending_approvals: contents.pendingApprovals.map(pendingApprovalJson),
  };
}

/** A tool call that waits for a decision, as the API shows it: `{ tool_call_id, tool, input, reason }`. */
export function pendingApprovalJson({ toolCall, reason }: PendingApproval): PendingApprovalJson {
  return { tool_call_id: toolCall.id, tool: toolCall.name, input: toolCall.input, reason };
}

/** The approval entry a decision stored, as a resumed turn's answer and the `approval` event carry it. */
export function approvalJson(record: DiskApprovalRecord): ApprovalEntryJson {
  return { id: record.id, timestamp: record.timestamp, decisions: record.decisions };
}

/** A message as a turn stored it, with its entry's `id` and `timestamp`. */
export function messageJson(record: DiskMessageRecord): StoredMessageJson {
  return withEntry(record.message, record);
}

/**
 * A message with the `id` and `timestamp` of its entry (none for a tool result the rebuild
 * synthesized), whether a prompt may follow that entry, and `unreadable` when it could be
 * loaded only in part.
 */
function withEntry(message: Message, entry: DiskMessage | null): StoredMessageJson {
  if (entry === null) return message;
  return {
    ...message,
    id: entry.id,
    timestamp: entry.timestamp,
    accepts_prompt: acceptsPrompt(entry),
    ...(entry.unreadable === undefined ? {} : { unreadable: entry.unreadable }),
  };
}

/** Each prompt of the conversation (with an entry id) and the usage of the answers that follow it, up to the next prompt or compaction. */
function turnsJson({ messages, entries }: SessionContents): SessionContentsJson['turns'] {
  const turns: SessionContentsJson['turns'] = [];
  let current: SessionContentsJson['turns'][number] | null = null;
  messages.forEach((message, index) => {
    const id = entries[index]?.id;
    if (message.role === 'user') {
      current = id === undefined ? null : { prompt_id: id, usage: emptyUsage() };
      if (current !== null) turns.push(current);
    } else if (message.role === 'compaction') current = null;
    else if (message.role === 'assistant' && current !== null) current.usage = addUsage(current.usage, message.usage);
  });
  return turns;
}

/** An entry as its log line says it, without the line's framing (`batch_size`). */
export function entryJson(entry: SessionEntry): EntryJson {
  return withoutFraming(entry);
}

/** A running turn as the API shows it (`GET /sessions/{id}`, the events, the stop); null when none runs. */
export function runningTurnJson(turn: RunningTurn): RunningTurnJson;
export function runningTurnJson(turn: RunningTurn | null): RunningTurnJson | null;
export function runningTurnJson(turn: RunningTurn | null): RunningTurnJson | null {
  if (turn === null) return null;
  return {
    running: true,
    started_at: turn.startedAt === null ? null : new Date(turn.startedAt).toISOString(),
    stop_requested: turn.stopRequested,
    partial: turn.partial === null ? null : partialJson(turn.partial),
  };
}

/** A running turn's answer so far, as `GET /sessions/{id}` (`turn.partial`) and the `partial` event carry it. */
export function partialJson(partial: PartialAnswer): PartialAnswerJson {
  return { message: partial.message, updated_at: partial.updatedAt };
}
