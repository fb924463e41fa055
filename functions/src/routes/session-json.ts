/** How sessions, their messages and their entries are answered, by every route that returns them. */
import type { DiskMessage, DiskMessageRecord, Message, SessionEntry, Usage } from '@panto/core';
import type { PartialAnswer } from '@panto/aws/service';
import { acceptsPrompt, addUsage, emptyUsage } from '@panto/core/agent-kit';
import type { EntryJson, PartialAnswerJson, RunningTurnJson, SessionContentsJson, SessionSummaryJson, StoredMessageJson } from '../api/response-schemas.js';
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

/** `GET /sessions/{id}` (and a leaf switch): the conversation as the next turn sees it, each prompt with what answering it used. */
export function contentsJson(contents: SessionContents): SessionContentsJson {
  const turnUsage = turnUsages(contents.messages);
  return {
    id: contents.id,
    messages: contents.messages.map((message, i) => {
      const json = withEntry(message, contents.entries[i] ?? null);
      const used = turnUsage.get(i);
      return used === undefined || json.role !== 'user' ? json : { ...json, turn_usage: used };
    }),
    dangling_user: contents.danglingUser,
    active_model: contents.activeModel,
    usage: contents.usage,
    entry_count: contents.entryCount,
    turn: runningTurnJson(contents.turn),
  };
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

/** Index of each prompt in `messages` → the usage of the answers that follow it, up to the next prompt or compaction. */
function turnUsages(messages: readonly Message[]): Map<number, Usage> {
  const usages = new Map<number, Usage>();
  let prompt: number | null = null;
  messages.forEach((message, index) => {
    if (message.role === 'user') {
      prompt = index;
      usages.set(index, emptyUsage());
    } else if (message.role === 'compaction') prompt = null;
    else if (message.role === 'assistant' && prompt !== null) usages.set(prompt, addUsage(usages.get(prompt) ?? emptyUsage(), message.usage));
  });
  return usages;
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
