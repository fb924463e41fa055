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

/**
 * Renders streamed markdown a block at a time: `push` text as it arrives (complete blocks
 * are written at once), `flush` at the end of the message (the rest is written).
 */
export class MarkdownStream {
  readonly #render: MarkdownRenderer;
  readonly #write: (text: string) => void;
  #pending = '';
  #wroteBlock = false;

  constructor(render: MarkdownRenderer, write: (text: string) => void) {
    this.#render = render;
    this.#write = write;
  }

  /** Adds streamed text; true when a block was written. */
  push(delta: string): boolean {
    this.#pending += delta;
    const end = completeBlocksEnd(this.#pending);
    if (end === 0) return false;
    this.#emit(this.#pending.slice(0, end));
    this.#pending = this.#pending.slice(end);
    return true;
  }

  flush(): void {
    const rest = this.#pending;
    this.#pending = '';
    if (rest.trim() !== '') this.#emit(rest);
    this.#wroteBlock = false;
  }

  #emit(markdown: string): void {
    const rendered = this.#render(markdown).replace(/^\n+/, '').trimEnd();
    if (rendered === '') return;
    this.#write(`${this.#wroteBlock ? '\n' : ''}${rendered}\n`);
    this.#wroteBlock = true;
  }
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
