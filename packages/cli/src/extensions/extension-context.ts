/** What extensions' commands and handlers reach in the CLI: its terminal as their UI, and the session. */
import { MemoryStore, type ExtensionSession, type ExtensionUI, type NoticeLevel, type SessionEntry, type SessionStore } from '@panto/core';
import { decodeSession, withoutFraming } from '@panto/core/store-kit';
import { readFile } from 'node:fs/promises';
import type { LineInput } from '../ui/line-input.js';
import type { Terminal } from '../ui/terminal.js';

/**
 * The terminal as an extension's UI: `print` to stdout, `notify` to stderr, and questions
 * asked on the terminal when a person is typing. With `-p`, or lines piped in, nobody is
 * there to answer: every question gets its default at once.
 */
export class CliUI implements ExtensionUI {
  readonly #terminal: Terminal;
  #input: LineInput | undefined;

  constructor(terminal: Terminal) {
    this.#terminal = terminal;
  }

  /** Where answers come from from now on (the REPL's input); questions get defaults unless it is interactive. */
  useInput(input: LineInput | undefined): void {
    this.#input = input;
  }

  print(text: string): void {
    this.#terminal.result(text);
  }

  notify(message: string, level: NoticeLevel = 'info'): void {
    switch (level) {
      case 'info':
        this.#terminal.note(message);
        return;
      case 'warning':
        this.#terminal.warn(message);
        return;
      case 'error':
        this.#terminal.error(message);
        return;
      default: {
        // An untyped extension may pass anything.
        this.#terminal.note(message);
      }
    }
  }

  async confirm(question: string, options: { default?: boolean } = {}): Promise<boolean> {
    const fallback = options.default ?? false;
    const answer = await this.#ask(`${question} ${fallback ? '[Y/n]' : '[y/N]'} `);
    if (answer === undefined || answer === '') return fallback;
    return /^(y|yes)$/i.test(answer);
  }

  async ask(question: string, options: { default?: string } = {}): Promise<string | undefined> {
    const suffix = options.default === undefined ? ' ' : ` [${options.default}] `;
    const answer = await this.#ask(`${question}${suffix}`);
    return answer === undefined || answer === '' ? options.default : answer;
  }

  /** The typed line, trimmed; undefined when nobody can answer or the question was cancelled. */
  async #ask(prompt: string): Promise<string | undefined> {
    const input = this.#input;
    if (input === undefined || !input.interactive) return undefined;
    this.#terminal.stopSpinner();
    this.#terminal.endLine();
    const read = await input.read(prompt);
    return read.type === 'line' ? read.text.trim() : undefined;
  }
}

/**
 * The session as extensions see it. Entries are read from the session file (its bytes are
 * the session); a `--no-session` resume keeps them in memory; a new `--no-session` session
 * has none to give.
 */
export function cliSession(store: SessionStore, sessionFile: () => string | undefined): ExtensionSession {
  return {
    // A getter: /fork changes the session under the store.
    get id() {
      return store.sessionId();
    },
    get file() {
      return sessionFile();
    },
    async entries(): Promise<readonly SessionEntry[]> {
      const file = sessionFile();
      if (file !== undefined) return decodeSession(await readFile(file), file).entries.map(withoutFraming);
      if (store instanceof MemoryStore) return structuredClone(store.entries);
      return [];
    },
  };
}
