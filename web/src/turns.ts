/** A session's messages as the transcript shows them: in turns, each a prompt and what answered it. */
import type { StoredMessage, Usage } from './api/wire.js';
import { NO_USAGE, sumUsage } from './format.js';

export interface TranscriptTurn {
  key: string;
  prompt: string | null;
  /** Everything after the prompt: assistant messages and tool results, in order. */
  replies: StoredMessage[];
  usage: Usage | null;
}

/** Messages grouped into turns: a user prompt and what answered it (system messages are shown in the header). */
export function groupTurns(messages: readonly StoredMessage[]): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  let current: TranscriptTurn | null = null;
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'user') {
      current = { key: message.id ?? `turn-${turns.length}`, prompt: message.content, replies: [], usage: null };
      turns.push(current);
      continue;
    }
    if (current === null) {
      current = { key: message.id ?? `turn-${turns.length}`, prompt: null, replies: [], usage: null };
      turns.push(current);
    }
    current.replies.push(message);
    if (message.role === 'assistant') current.usage = sumUsage(current.usage ?? NO_USAGE, message.usage);
  }
  return turns;
}

/** The first prompt of a session: what names it until it is renamed. */
export function firstPrompt(messages: readonly StoredMessage[]): string | null {
  for (const message of messages) if (message.role === 'user') return message.content;
  return null;
}
