import {
  addUsage,
  effectiveSystemPrompt,
  emptyUsage,
  messageUsage,
  type AssistantMessage,
  type Message,
  type Usage,
} from './messages.js';

/**
 * The live conversation: always one linear chain of messages. Branches exist only in a
 * store's tree of entries; a store flattens one path into a Conversation.
 *
 * @example
 * const conversation = new Conversation([{ role: 'user', content: 'hi' }]);
 * conversation.usage(); // summed from the assistant messages
 */
export class Conversation {
  readonly #messages: Message[];

  constructor(messages: readonly Message[] = []) {
    this.#messages = [...messages];
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  get length(): number {
    return this.#messages.length;
  }

  /** Adds messages at the end. The agent persists before it calls this. */
  push(...messages: Message[]): void {
    this.#messages.push(...messages);
  }

  /** Replaces every message (compaction). */
  replaceAll(messages: readonly Message[]): void {
    this.#messages.splice(0, this.#messages.length, ...messages);
  }

  /** The system prompt in force, folded from the system messages; undefined if none. */
  systemPrompt(): string | undefined {
    return effectiveSystemPrompt(this.#messages);
  }

  /** Total usage, read from the messages themselves (compactions carry what they replaced). */
  usage(): Usage {
    let total = emptyUsage();
    for (const message of this.#messages) {
      const usage = messageUsage(message);
      if (usage) total = addUsage(total, usage);
    }
    return total;
  }

  lastAssistant(): AssistantMessage | undefined {
    for (let i = this.#messages.length - 1; i >= 0; i--) {
      const message = this.#messages[i];
      if (message?.role === 'assistant') return message;
    }
    return undefined;
  }

  /** A deep copy that shares nothing with this one. */
  clone(): Conversation {
    return new Conversation(structuredClone(this.#messages));
  }

  toJSON(): readonly Message[] {
    return this.#messages;
  }
}
