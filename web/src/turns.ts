/** A session's messages as the transcript shows them: in turns, each a prompt and what answered it. */
import type { StoredMessage, Usage } from './api/wire.js';
import { NO_USAGE, sumUsage } from './format.js';

export interface TranscriptTurn {
  /** The prompt's entry id (or the first reply's, for a turn without a prompt). */
  key: string;
  prompt: string | null;
  /** The message just before the prompt on the path (undefined for the first): what an edited version of it follows. */
  previous: StoredMessage | undefined;
  /** Everything after the prompt: assistant messages and tool results, in order. */
  replies: StoredMessage[];
  usage: Usage | null;
}

/**
 * Messages grouped into turns: a user prompt and what answered it (system messages are shown
 * in the header). A compaction is a turn of its own: it stands for what came before it.
 */
export function groupTurns(messages: readonly StoredMessage[]): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  let current: TranscriptTurn | null = null;
  for (const [index, message] of messages.entries()) {
    if (message.role === 'system') continue;
    if (message.role === 'compaction') {
      turns.push({ key: message.id ?? `turn-${turns.length}`, prompt: null, previous: messages[index - 1], replies: [message], usage: null });
      current = null;
      continue;
    }
    if (message.role === 'user') {
      current = { key: message.id ?? `turn-${turns.length}`, prompt: message.content, previous: messages[index - 1], replies: [], usage: null };
      turns.push(current);
      continue;
    }
    if (current === null) {
      current = { key: message.id ?? `turn-${turns.length}`, prompt: null, previous: messages[index - 1], replies: [], usage: null };
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
