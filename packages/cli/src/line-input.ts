import { createInterface, type Interface } from 'node:readline';

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
}

/** The stdin a LineInput reads from. */
export type InputStream = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };

/**
 * Lines from a terminal. Each prompt gets its own readline interface, closed as soon as the
 * line is read: while a turn runs the terminal is back in cooked mode, so Ctrl-C is a real
 * SIGINT (which aborts the turn) and typed-ahead text waits for the next prompt.
 */
export class TerminalLineInput implements LineInput {
  readonly interactive = true;
  readonly #input: InputStream;
  readonly #output: NodeJS.WritableStream;
  #history: string[] = [];
  #closed = false;
  #current: { rl: Interface; finish: (read: LineRead) => void } | undefined;

  constructor(input: InputStream, output: NodeJS.WritableStream) {
    this.#input = input;
    this.#output = output;
  }

  read(prompt: string, prefill?: string): Promise<LineRead> {
    if (this.#closed) return Promise.resolve({ type: 'end' });
    return new Promise((resolve) => {
      const rl = createInterface({
        input: this.#input,
        output: this.#output,
        terminal: true,
        history: [...this.#history],
        historySize: 1000,
        removeHistoryDuplicates: true,
        prompt,
      });
      let done = false;
      const finish = (read: LineRead) => {
        if (done) return;
        done = true;
        this.#current = undefined;
        rl.close();
        resolve(read);
      };
      this.#current = { rl, finish };
      rl.on('history', (history: string[]) => {
        this.#history = [...history];
      });
      rl.on('line', (text) => finish({ type: 'line', text }));
      rl.on('SIGINT', () => {
        if (rl.line === '') {
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
      if (prefill !== undefined && prefill !== '') rl.write(prefill);
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
