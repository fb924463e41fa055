import { createInterface, type Interface } from 'node:readline';
import { HISTORY_SIZE, InputHistory } from './input-history.js';
import type { Key } from './keys.js';
import type { InputStream } from './terminal.js';

/** What reading a line gave. */
export type LineRead =
  | { type: 'line'; text: string }
  /** Ctrl-C on a line with text: the line is dropped, ask again. */
  | { type: 'cancel' }
  /** Ctrl-D, Ctrl-C on an empty line, the end of piped input, or `close()`. */
  | { type: 'end' };

/** Where the REPL's lines come from. */
export interface LineInput {
  /** Asks for one line; `prefill` is put in the input line for the user to edit or send (terminals only). */
  read(prompt: string, prefill?: string): Promise<LineRead>;
  /** Ends input: a pending and every later `read` gives `end`. */
  close(): void;
  /** Whether a person is typing (a terminal) rather than lines being piped in. */
  readonly interactive: boolean;
  /** The terminal's streams, for commands that read keys (`/tree`); absent for piped input. */
  readonly terminal?: { input: InputStream; output: NodeJS.WritableStream & { columns?: number } };
}

/** The prompt of the second and later lines of a prompt of several lines. */
export const CONTINUATION_PROMPT = '… ';

/** How a line break shows in the input line when a prompt of several lines is recalled from history or prefilled. */
export const NEWLINE_MARK = '↵';

/**
 * Lines from a terminal. Each prompt gets its own readline interface, closed as soon as the
 * line is read: while a turn runs the terminal is back in cooked mode, so Ctrl-C is a real
 * SIGINT (which aborts the turn) and typed-ahead text waits for the next prompt.
 *
 * A prompt can have several lines: a line ending in `\` or Alt-Enter goes on to a new line
 * (not Ctrl-J: an Enter typed ahead while a turn runs reaches readline as Ctrl-J), and a
 * paste (bracketed paste) keeps its line breaks. Up and down go through the history (of
 * this folder, across runs, when an `InputHistory` is given); there, and in a prefilled
 * line, line breaks show as `↵`, and a `↵` in a sent line is a line break.
 */
export class TerminalLineInput implements LineInput {
  readonly interactive = true;
  readonly #input: InputStream;
  readonly #output: NodeJS.WritableStream & { isTTY?: boolean };
  readonly #history: InputHistory;
  #closed = false;
  #current: { rl: Interface; finish: (read: LineRead) => void } | undefined;

  constructor(input: InputStream, output: NodeJS.WritableStream & { isTTY?: boolean }, history: InputHistory = InputHistory.memory()) {
    this.#input = input;
    this.#output = output;
    this.#history = history;
  }

  get terminal(): { input: InputStream; output: NodeJS.WritableStream & { columns?: number } } {
    return { input: this.#input, output: this.#output };
  }

  read(prompt: string, prefill?: string): Promise<LineRead> {
    if (this.#closed) return Promise.resolve({ type: 'end' });
    return new Promise((resolve) => {
      const rl = createInterface({
        input: this.#input,
        output: this.#output,
        terminal: true,
        history: this.#history.entries().map((entry) => entry.replaceAll('\n', NEWLINE_MARK)),
        historySize: HISTORY_SIZE,
        removeHistoryDuplicates: true,
        prompt,
      });
      const bracketedPaste = this.#output.isTTY === true;
      if (bracketedPaste) this.#output.write('\x1b[?2004h');
      const lines: string[] = [];
      let pasting = false;
      let newLine = false;
      // Runs before readline's own handler of the same key, so `newLine` is set when its 'line' comes.
      const onKey = (_text: string | undefined, key: Key | undefined) => {
        if (key === undefined) return;
        if (key.name === 'paste-start') pasting = true;
        else if (key.name === 'paste-end') pasting = false;
        else if (key.name === 'return' && pasting) newLine = true;
        else if (key.name === 'return' && key.meta) {
          // Alt-Enter: readline ignores it; end the line here as a new line of the prompt.
          newLine = true;
          rl.write(null, { name: 'enter' });
        }
      };
      this.#input.prependListener('keypress', onKey);
      let done = false;
      const finish = (read: LineRead) => {
        if (done) return;
        done = true;
        this.#current = undefined;
        this.#input.off('keypress', onKey);
        if (bracketedPaste) this.#output.write('\x1b[?2004l');
        rl.close();
        if (read.type === 'line') this.#history.add(read.text);
        resolve(read);
      };
      this.#current = { rl, finish };
      rl.on('line', (text) => {
        const goesOn = newLine || text.endsWith('\\');
        const line = !newLine && goesOn ? text.slice(0, -1) : text;
        newLine = false;
        lines.push(line.replaceAll(NEWLINE_MARK, '\n'));
        if (goesOn) {
          rl.setPrompt(CONTINUATION_PROMPT);
          rl.prompt();
          return;
        }
        finish({ type: 'line', text: lines.join('\n') });
      });
      rl.on('SIGINT', () => {
        if (rl.line === '' && lines.length === 0) {
          this.#output.write('\n');
          finish({ type: 'end' });
        } else {
          this.#output.write('^C\n');
          finish({ type: 'cancel' });
        }
      });
      rl.on('close', () => {
        if (!done) this.#output.write('\n');
        finish({ type: 'end' });
      });
      rl.prompt();
      if (prefill !== undefined && prefill !== '') rl.write(prefill.replaceAll('\n', NEWLINE_MARK));
    });
  }

  close(): void {
    this.#closed = true;
    this.#current?.finish({ type: 'end' });
  }
}

/**
 * Lines piped into stdin, read in order, each a prompt or a command; the end of the input
 * ends the session. Nothing is prefilled: there is nobody to edit it.
 */
export class PipedLineInput implements LineInput {
  readonly interactive = false;
  readonly #lines: string[] = [];
  readonly #waiting: ((read: LineRead) => void)[] = [];
  readonly #rl: Interface;
  #ended = false;

  constructor(input: NodeJS.ReadableStream) {
    this.#rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.#rl.on('line', (line) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter({ type: 'line', text: line });
      else this.#lines.push(line);
    });
    this.#rl.on('close', () => this.#end());
  }

  read(_prompt: string, _prefill?: string): Promise<LineRead> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve({ type: 'line', text: line });
    if (this.#ended) return Promise.resolve({ type: 'end' });
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  close(): void {
    this.#lines.length = 0;
    this.#rl.close();
    this.#end();
  }

  #end(): void {
    this.#ended = true;
    for (const waiter of this.#waiting.splice(0)) waiter({ type: 'end' });
  }
}
