/** Turns a markdown text into terminal text (ANSI styles). Must not throw. */
export type MarkdownRenderer = (markdown: string) => string;

/**
 * Whether what goes to `stream` is styled (colours, rendered markdown): it is a terminal,
 * NO_COLOR is unset or empty, and TERM is not dumb.
 */
export function wantsStyles(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb';
}

/** `text` cut to at most `max` characters (code points), ending in `…` when it was cut. */
export function ellipsize(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/** The stdin the CLI reads lines and keys from (a terminal, or piped input). */
export type InputStream = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };

/** A stream the CLI writes to; `isTTY` decides about colours and the spinner. */
export interface OutputStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
  readonly rows?: number;
}

const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPINNER_INTERVAL_MS = 80;

/**
 * The CLI's two output streams: stdout for answers (and command results), stderr for
 * everything about them — notes, tool lines, usage, errors, the spinner. A spinner line
 * is cleared before anything else is written, and a note never starts in the middle of
 * streamed text.
 */
export class Terminal {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** Renders answers' markdown for stdout; undefined: answers are written as they are (see markdown.ts). */
  renderMarkdown: MarkdownRenderer | undefined;
  readonly #color: boolean;
  readonly #spinnerEnabled: boolean;
  #stdoutAtLineStart = true;
  #spinnerTimer: NodeJS.Timeout | undefined;
  #spinnerLabel = '';
  #spinnerFrame = 0;
  #spinnerShown = false;

  constructor(stdout: OutputStream, stderr: OutputStream, env: Readonly<Record<string, string | undefined>> = {}) {
    this.stdout = stdout;
    this.stderr = stderr;
    this.#spinnerEnabled = stderr.isTTY === true;
    this.#color = wantsStyles(stderr, env);
  }

  /** Streamed answer text, to stdout. */
  text(text: string): void {
    if (text === '') return;
    this.#clearSpinner();
    this.stdout.write(text);
    this.#stdoutAtLineStart = text.endsWith('\n');
  }

  /** Ends the current stdout line if text left it open. */
  endLine(): void {
    if (!this.#stdoutAtLineStart) this.text('\n');
  }

  /** A whole line of output a command was asked for, to stdout. */
  result(line: string): void {
    this.endLine();
    this.text(`${line}\n`);
  }

  /** A line about what is going on (dimmed on a terminal), to stderr. */
  note(line: string): void {
    this.#stderrLine(this.#style(line, '2'));
  }

  /** A warning, to stderr. */
  warn(line: string): void {
    this.#stderrLine(this.#style(line, '33'));
  }

  /** An error, to stderr. */
  error(line: string): void {
    this.#stderrLine(this.#style(line, '31'));
  }

  /** Shows (or relabels) the spinner on stderr; a no-op when stderr is not a terminal. */
  spin(label: string): void {
    if (!this.#spinnerEnabled) return;
    this.#spinnerLabel = label;
    if (this.#spinnerTimer === undefined) {
      this.endLine();
      this.#spinnerTimer = setInterval(() => this.#drawSpinner(), SPINNER_INTERVAL_MS);
      this.#spinnerTimer.unref();
    }
    this.#drawSpinner();
  }

  /** Hides the spinner. */
  stopSpinner(): void {
    if (this.#spinnerTimer !== undefined) clearInterval(this.#spinnerTimer);
    this.#spinnerTimer = undefined;
    this.#clearSpinner();
  }

  get color(): boolean {
    return this.#color;
  }

  #stderrLine(line: string): void {
    this.#clearSpinner();
    // stdout and stderr usually share a terminal: do not glue a note to streamed text.
    if (this.stdout.isTTY && this.stderr.isTTY) this.endLine();
    this.stderr.write(`${line}\n`);
    if (this.#spinnerTimer !== undefined) this.#drawSpinner();
  }

  #drawSpinner(): void {
    const frame = SPINNER_FRAMES[this.#spinnerFrame++ % SPINNER_FRAMES.length]!;
    const width = Math.max(20, (this.stderr.columns ?? 80) - 4);
    const label = this.#spinnerLabel.length > width ? `${this.#spinnerLabel.slice(0, width - 1)}…` : this.#spinnerLabel;
    this.stderr.write(`\r\x1b[2K${this.#style(`${frame} ${label}`, '2')}`);
    this.#spinnerShown = true;
  }

  #clearSpinner(): void {
    if (!this.#spinnerShown) return;
    this.stderr.write('\r\x1b[2K');
    this.#spinnerShown = false;
  }

  #style(text: string, code: string): string {
    return this.#color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }
}
