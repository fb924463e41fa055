/** A session's messages as the transcript shows them: in turns, each a prompt and what answered it. */
import type { StoredMessage, Usage } from './api/wire.js';

export interface TranscriptTurn {
  /** The prompt's entry id (or the first reply's, for a turn without a prompt). */
  key: string;
  prompt: string | null;
  /** The message just before the prompt on the path (undefined for the first): what an edited version of it follows. */
  previous: StoredMessage | undefined;
  /** Everything after the prompt: assistant messages and tool results, in order. */
  replies: StoredMessage[];
  /** What answering the prompt used, as the server summed it (the session's `turns`); null where it did not (no prompt, earlier messages read from the log). */
  usage: Usage | null;
}

/**
 * Messages grouped into turns: a user prompt and what answered it (system messages are shown
 * in the header), with what answering it used (`usages`: the session's `turns`). A compaction
 * is a turn of its own: it stands for what came before it.
 */
export function groupTurns(messages: readonly StoredMessage[], usages: readonly { prompt_id: string; usage: Usage }[] = []): TranscriptTurn[] {
  const used = new Map(usages.map((turn) => [turn.prompt_id, turn.usage]));
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
      const usage = (message.id === undefined ? undefined : used.get(message.id)) ?? null;
      current = { key: message.id ?? `turn-${turns.length}`, prompt: message.content, previous: messages[index - 1], replies: [], usage };
      turns.push(current);
      continue;
    }
    if (current === null) {
      current = { key: message.id ?? `turn-${turns.length}`, prompt: null, previous: messages[index - 1], replies: [], usage: null };
      turns.push(current);
    }
    current.replies.push(message);
  }
  return turns;
}

/** The first prompt of a session: what names it until it is renamed. */
export function firstPrompt(messages: readonly StoredMessage[]): string | null {
  for (const message of messages) if (message.role === 'user') return message.content;
  return null;
}

/** The text of an answer — every text block of its assistant messages, as the model wrote it (markdown), a blank line between. */
export function answerText(replies: readonly StoredMessage[]): string {
  const parts: string[] = [];
  for (const reply of replies) {
    if (reply.role !== 'assistant') continue;
    for (const block of reply.content) if (block.type === 'text' && block.text.trim() !== '') parts.push(block.text.trim());
  }
  return parts.join('\n\n');
}

/** The models that wrote an answer (`model` of its assistant messages), each once, in order. */
export function answerModels(replies: readonly StoredMessage[]): string[] {
  return [...new Set(replies.flatMap((reply) => (reply.role === 'assistant' ? [reply.model] : [])))];
}
