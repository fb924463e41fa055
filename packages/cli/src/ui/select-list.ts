/**
 * A list to choose from on the terminal: arrow keys (and PgUp/PgDn, Home/End) move, typing
 * filters (Backspace deletes), Enter chooses, Esc or Ctrl-C cancels; extra keys (e.g. `e`
 * for "edit") can choose too, when filtering is off. Drawn below the cursor and erased when
 * done. Used by the session picker and `/tree`. Rows longer than the terminal is wide are cut
 * (`…`); the key help is wrapped, never cut.
 */
import { printable, readKeys, type Key } from './keys.js';
import { ellipsize, type InputStream } from './terminal.js';
import { joinToWidth } from './wrap.js';

export interface SelectItem<T> {
  value: T;
  /** The line shown (cut to the terminal's width). */
  label: string;
  /** What typing filters on (default: the label). */
  search?: string;
}

export interface SelectOptions<T> {
  title: string;
  /** The key help line under the list. */
  help: string;
  items: readonly SelectItem<T>[];
  /** The item selected at first (default: the first). */
  initial?: number;
  /** Type to filter (default true). When false, printable keys can be `actions`. */
  filter?: boolean;
  /** Keys (single characters) that choose the selected item with that action. */
  actions?: readonly string[];
  /** Rows of the list shown at once (default 12). */
  rows?: number;
}

/** What was chosen: the item and the key (`enter` or one of the actions); undefined: cancelled. */
export type SelectResult<T> = { value: T; action: string } | undefined;

/** The terminal a list is drawn on. */
type ListOutput = NodeJS.WritableStream & { columns?: number; rows?: number };

export function selectFromList<T>(input: InputStream, output: ListOutput, options: SelectOptions<T>): Promise<SelectResult<T>> {
  // The frame (title, rows, position, help, and the line the cursor is left on) must fit the
  // terminal: taller, it scrolls, and moving up to redraw it can no longer reach its top.
  const height = output.rows;
  const width = () => Math.max(20, (output.columns ?? 80) - 1);
  const helpLines = helpText(options.help, width()).length;
  const list = new ListState(options, Math.max(1, Math.min(options.rows ?? 12, height === undefined ? Infinity : height - 3 - helpLines)));
  const frame = new Frame(output);
  const draw = () => frame.draw(list.frameLines(width()));
  return new Promise((resolve) => {
    const stop = readKeys(input, (text, key) => {
      const outcome = list.press(text, key);
      if (outcome === 'redraw') draw();
      else if (outcome !== 'ignore') {
        stop();
        frame.erase();
        resolve(outcome.chosen);
      }
    });
    draw();
  });
}

/** The key help under the list, its parts (`↑↓ move · Enter: choose`) kept whole on lines of `width`. */
function helpText(help: string, width: number): string[] {
  return joinToWidth(help.split(' · '), ' · ', width);
}

/** What a key did: nothing to show, a change to draw, or the end of the choice. */
type KeyOutcome<T> = 'ignore' | 'redraw' | { chosen: SelectResult<T> };

/** The list's state — the filter typed so far, the selected item, the first row shown — and what keys do to it. */
class ListState<T> {
  readonly #options: SelectOptions<T>;
  readonly #rows: number;
  readonly #filtering: boolean;
  #query = '';
  #selected: number;
  #top = 0;

  constructor(options: SelectOptions<T>, rows: number) {
    this.#options = options;
    this.#rows = rows;
    this.#filtering = options.filter ?? true;
    this.#selected = Math.max(0, Math.min(options.initial ?? 0, options.items.length - 1));
  }

  /** The items the filter lets through: those whose text holds every word typed. */
  visible(): readonly SelectItem<T>[] {
    if (this.#query === '') return this.#options.items;
    const words = this.#query
      .toLowerCase()
      .split(/\s+/)
      .filter((word) => word !== '');
    return this.#options.items.filter((item) => {
      const text = (item.search ?? item.label).toLowerCase();
      return words.every((word) => text.includes(word));
    });
  }

  /** The lines of the frame, each at most `width`: title (and filter) and rows cut, the position, the help wrapped. */
  frameLines(width: number): string[] {
    const items = this.visible();
    const rows = this.#rows;
    this.#selected = Math.max(0, Math.min(this.#selected, items.length - 1));
    if (this.#selected < this.#top) this.#top = this.#selected;
    if (this.#selected >= this.#top + rows) this.#top = this.#selected - rows + 1;
    const lines = [ellipsize(`${this.#options.title}${this.#filtering ? `  filter: ${this.#query}` : ''}`, width)];
    if (items.length === 0) lines.push('  (nothing matches)');
    for (let i = this.#top; i < Math.min(items.length, this.#top + rows); i++) {
      const line = ellipsize(`${i === this.#selected ? '❯ ' : '  '}${items[i]!.label}`, width);
      lines.push(i === this.#selected ? `\x1b[7m${line}\x1b[27m` : line);
    }
    if (items.length > rows) lines.push(`  (${this.#selected + 1}/${items.length})`);
    lines.push(...helpText(this.#options.help, width));
    return lines;
  }

  press(text: string | undefined, key: Key): KeyOutcome<T> {
    const items = this.visible();
    if (key.ctrl && (key.name === 'c' || key.name === 'd')) return { chosen: undefined };
    const moved = this.#moveTo(key.name, items.length);
    if (moved !== undefined) {
      this.#selected = moved;
      return 'redraw';
    }
    switch (key.name) {
      case 'escape':
        return { chosen: undefined };
      case 'return':
      case 'enter': {
        const item = items[this.#selected];
        return item === undefined ? 'ignore' : { chosen: { value: item.value, action: 'enter' } };
      }
      case 'backspace':
        if (!this.#filtering || this.#query === '') return 'ignore';
        return this.#filter(this.#query.slice(0, -1));
      default:
        break;
    }
    if (!printable(text, key)) return 'ignore';
    if (this.#filtering) return this.#filter(this.#query + text);
    const item = items[this.#selected];
    return item !== undefined && this.#options.actions?.includes(text) ? { chosen: { value: item.value, action: text } } : 'ignore';
  }

  /** Where a moving key (arrows, PgUp/PgDn, Home/End) takes the selection among `count` items; undefined for other keys. */
  #moveTo(name: string | undefined, count: number): number | undefined {
    switch (name) {
      case 'up':
        return Math.max(0, this.#selected - 1);
      case 'down':
        return Math.min(count - 1, this.#selected + 1);
      case 'pageup':
        return Math.max(0, this.#selected - this.#rows);
      case 'pagedown':
        return Math.min(count - 1, this.#selected + this.#rows);
      case 'home':
        return 0;
      case 'end':
        return count - 1;
      default:
        return undefined;
    }
  }

  #filter(query: string): KeyOutcome<T> {
    this.#query = query;
    this.#selected = 0;
    return 'redraw';
  }
}

/** The lines drawn below the cursor, redrawn in place and erased at the end. */
class Frame {
  readonly #output: NodeJS.WritableStream;
  #drawn = 0;

  constructor(output: NodeJS.WritableStream) {
    this.#output = output;
  }

  draw(lines: readonly string[]): void {
    this.erase();
    this.#output.write(`${lines.join('\n')}\n`);
    this.#drawn = lines.length;
  }

  erase(): void {
    if (this.#drawn > 0) this.#output.write(`\x1b[${this.#drawn}A`);
    this.#output.write('\r\x1b[J');
  }
}
