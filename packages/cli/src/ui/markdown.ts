/**
 * Markdown for the terminal: answers are rendered (headings, emphasis, lists, tables, code
 * highlighted) by marked with marked-terminal — a maintained renderer used by many CLIs,
 * rather than a hand-made one — when stdout is a terminal and NO_COLOR is unset; plain text
 * otherwise. Streamed answers are rendered a block at a time: a block is complete at a blank
 * line outside a fenced code block.
 */
import { wantsStyles, type MarkdownRenderer } from './terminal.js';

/** Whether answers are rendered: when stdout is styled (see {@link wantsStyles}). */
export function wantsMarkdown(stdout: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  return wantsStyles(stdout, env);
}

/**
 * Loads the renderer (marked and its terminal renderer are imported on first use: a run that
 * prints plain text never loads them). `width` is the terminal's width.
 */
export async function loadMarkdownRenderer(width = 80): Promise<MarkdownRenderer> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([import('marked'), import('marked-terminal')]);
  const marked = new Marked(markedTerminal({ reflowText: false, width: Math.max(20, Math.min(width, 120)), tab: 2, emoji: false }, { ignoreIllegals: true }));
  // marked-terminal 7 writes the text of a list item as it is, so `- **bold** and `code``
  // kept its markers (mikaelbr/marked-terminal#304, #371): render the inline tokens of such
  // block-level text, and leave every other text to marked-terminal (`false` falls back).
  marked.use({
    renderer: {
      text(token) {
        return 'tokens' in token && token.tokens !== undefined && token.tokens.length > 0 ? this.parser.parseInline(token.tokens) : false;
      },
    },
  });
  return (markdown) => {
    try {
      const out = marked.parse(markdown, { async: false });
      return typeof out === 'string' ? out : markdown;
    } catch {
      return markdown;
    }
  };
}

/** Where {@link MarkdownStream} writes: text, and the size of the terminal (to erase what it wrote raw). */
export interface MarkdownOutput {
  write(text: string): void;
  /** The terminal's width; undefined: not a terminal (what is shown raw is never erased, nor written). */
  columns?: () => number | undefined;
  rows?: () => number | undefined;
}

/**
 * Renders streamed markdown a block at a time: `push` text as it arrives, `flush` at the
 * end of the message. A complete block (a paragraph, a closed code fence, a list — ended by
 * a blank line) is written rendered; on a terminal the block still open is shown raw as it
 * arrives, and replaced by its rendering once it is complete (erased: the cursor goes back
 * up the rows it took). A raw block taller than the screen stays raw: it can no longer be
 * reached to be erased.
 */
export class MarkdownStream {
  readonly #render: MarkdownRenderer;
  readonly #out: MarkdownOutput;
  #pending = '';
  /** The part of `#pending` shown raw. */
  #shown = '';
  #wroteBlock = false;
  /** The blank line before the next block is written (it goes before its raw text). */
  #separated = false;

  constructor(render: MarkdownRenderer, out: MarkdownOutput | ((text: string) => void)) {
    this.#render = render;
    this.#out = typeof out === 'function' ? { write: out } : out;
  }

  /** Adds streamed text; true when something was written. */
  push(delta: string): boolean {
    this.#pending += delta;
    const end = completeBlocksEnd(this.#pending);
    let wrote = false;
    if (end > 0) {
      const block = this.#pending.slice(0, end);
      this.#pending = this.#pending.slice(end);
      this.#emit(block);
      wrote = true;
    }
    return this.#showRaw() || wrote;
  }

  flush(): void {
    const rest = this.#pending;
    this.#pending = '';
    if (rest.trim() !== '') this.#emit(rest);
    this.#shown = '';
    this.#wroteBlock = false;
    this.#separated = false;
  }

  /** Writes what arrived of the open block and is not on screen yet (terminals only). */
  #showRaw(): boolean {
    if (this.#out.columns?.() === undefined) return false;
    const open = this.#pending.replace(/^\n+/, '');
    if (open === '' || open === this.#shown) return false;
    if (this.#shown === '' && this.#wroteBlock && !this.#separated) {
      this.#out.write('\n');
      this.#separated = true;
    }
    this.#out.write(open.slice(this.#shown.length));
    this.#shown = open;
    return true;
  }

  /** Takes the raw text of the open block off the screen; false when it no longer fits on it (it scrolled past the top). */
  #erase(): boolean {
    const shown = this.#shown;
    if (shown === '') return true;
    const up = rowsAbove(shown, this.#out.columns?.() ?? 80);
    if (up >= (this.#out.rows?.() ?? 24) - 1) return false;
    this.#shown = '';
    this.#out.write(`\r${up > 0 ? `\x1b[${up}A` : ''}\x1b[J`);
    return true;
  }

  #emit(markdown: string): void {
    if (!this.#erase()) {
      // What is on screen stays raw: the rest of the block is written raw after it.
      const open = markdown.replace(/^\n+/, '').trimEnd();
      this.#out.write(`${open.slice(this.#shown.length)}\n`);
      this.#shown = '';
      this.#wroteBlock = true;
      this.#separated = false;
      return;
    }
    const rendered = this.#render(markdown).replace(/^\n+/, '').trimEnd();
    if (rendered === '') return;
    this.#out.write(`${this.#wroteBlock && !this.#separated ? '\n' : ''}${rendered}\n`);
    this.#wroteBlock = true;
    this.#separated = false;
  }
}

/** How many rows above the cursor `text` starts, written from the start of a row on a terminal `columns` wide. */
export function rowsAbove(text: string, columns: number): number {
  const lines = text.split('\n');
  let rows = 0;
  for (let i = 0; i < lines.length; i++) {
    const width = Array.from(lines[i]!).length;
    // A full last row leaves the cursor on it (the wrap is pending); a line break always moves down.
    rows += i < lines.length - 1 ? Math.max(1, Math.ceil(width / columns)) : width === 0 ? 0 : Math.floor((width - 1) / columns);
  }
  return rows;
}

/** Where the complete blocks of `text` end: after its last blank line outside a code fence (0: none yet). */
export function completeBlocksEnd(text: string): number {
  let inFence: string | undefined;
  let end = 0;
  let offset = 0;
  const lines = text.split('\n');
  // The last element is an unfinished line; only whole lines count.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    offset += line.length + 1;
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (inFence === undefined) inFence = fence[0];
      else if (fence[0] === inFence) {
        inFence = undefined;
        end = offset;
        continue;
      }
    }
    if (inFence === undefined && line.trim() === '') end = offset;
  }
  return end;
}
