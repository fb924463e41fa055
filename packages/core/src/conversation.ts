import { addUsage, effectiveSystemPrompt, emptyUsage, messageUsage, type AssistantMessage, type Message, type Usage } from './messages.js';

/** Gives the agent — and nothing outside this package — write access (set in Conversation's static block). */
let writable: (conversation: Conversation) => Message[];

/**
 * The live conversation: always one linear chain of messages. Branches exist only in a
 * store's tree of entries; a store flattens one path into a Conversation. Read-only to
 * everyone but the agent that owns it, which changes it only after the store has the
 * change (see `Agent`).
 *
 * @example
 * const conversation = new Conversation([{ role: 'user', content: 'hi' }]);
 * conversation.usage(); // summed from the assistant messages
 */
export class Conversation {
  readonly #messages: Message[];

  static {
    writable = (conversation) => conversation.#messages;
  }

  constructor(messages: readonly Message[] = []) {
    this.#messages = [...messages];
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  get length(): number {
    return this.#messages.length;
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

/** Adds messages at the end of `conversation`. For the agent only: not exported from the package. */
export function appendMessages(conversation: Conversation, messages: readonly Message[]): void {
  writable(conversation).push(...messages);
}

/** Replaces every message of `conversation` (a compaction). For the agent only. */
export function replaceMessages(conversation: Conversation, messages: readonly Message[]): void {
  const current = writable(conversation);
  current.splice(0, current.length, ...messages);
}
