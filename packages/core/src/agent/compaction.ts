import type { CompactionMessage, Message } from '../messages.js';
import type { DiskCompactionRecord } from '../session/records.js';

export const DEFAULT_COMPACTION_PROMPT = [
  'Summarise the conversation so far so that it can continue from your summary alone.',
  "Keep: the user's goals and constraints, decisions made, facts learned, files and code touched",
  '(with paths), tool results that still matter, open questions and the next steps.',
  'Write it as notes to yourself. Do not call any tools.',
].join(' ');

/** The instruction a compaction sends after the conversation: the agent's prompt, and the caller's additions. */
export function compactionPrompt(prompt: string, instructions?: string): string {
  return instructions?.trim() ? `${prompt}\n\nAdditional instructions: ${instructions.trim()}` : prompt;
}

/** The conversation after `record`: its system messages, then the summary. */
export function compactedMessages(messages: readonly Message[], record: DiskCompactionRecord): Message[] {
  const { type: _type, id: _id, timestamp: _timestamp, ...fields } = record;
  const compaction: CompactionMessage = { role: 'compaction', ...fields };
  return [...messages.filter((message) => message.role === 'system'), compaction];
}
