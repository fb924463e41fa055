/**
 * A list to choose from on the terminal: arrow keys (and PgUp/PgDn, Home/End) move, typing
 * filters (Backspace deletes), Enter chooses, Esc or Ctrl-C cancels; extra keys (e.g. `e`
 * for "edit") can choose too, when filtering is off. Drawn below the cursor and erased when
 * done. Used by the session picker and `/tree`.
 */
import { printable, readKeys } from './keys.js';
import type { InputStream } from './terminal.js';

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

export function selectFromList<T>(
  input: InputStream,
  output: NodeJS.WritableStream & { columns?: number; rows?: number },
  options: SelectOptions<T>,
): Promise<SelectResult<T>> {
  const filtering = options.filter ?? true;
  // The frame (title, rows, position, help, and the line the cursor is left on) must fit the
  // terminal: taller, it scrolls, and moving up to redraw it can no longer reach its top.
  const height = output.rows;
  const rows = Math.max(1, Math.min(options.rows ?? 12, height === undefined ? Infinity : height - 4));
  let query = '';
  let selected = Math.max(0, Math.min(options.initial ?? 0, options.items.length - 1));
  let top = 0;
  let drawn = 0;
  const visible = () => {
    if (query === '') return options.items;
    const words = query
      .toLowerCase()
      .split(/\s+/)
      .filter((word) => word !== '');
    return options.items.filter((item) => {
      const text = (item.search ?? item.label).toLowerCase();
      return words.every((word) => text.includes(word));
    });
  };
  const width = () => Math.max(20, (output.columns ?? 80) - 1);
  const fit = (line: string) => {
    const chars = Array.from(line);
    return chars.length > width() ? `${chars.slice(0, width() - 1).join('')}…` : line;
  };
  const erase = () => {
    if (drawn > 0) output.write(`\x1b[${drawn}A`);
    output.write('\r\x1b[J');
  };
  const draw = () => {
    const items = visible();
    selected = Math.max(0, Math.min(selected, items.length - 1));
    if (selected < top) top = selected;
    if (selected >= top + rows) top = selected - rows + 1;
    const lines = [fit(`${options.title}${filtering ? `  filter: ${query}` : ''}`)];
    if (items.length === 0) lines.push('  (nothing matches)');
    for (let i = top; i < Math.min(items.length, top + rows); i++) {
      const line = fit(`${i === selected ? '❯ ' : '  '}${items[i]!.label}`);
      lines.push(i === selected ? `\x1b[7m${line}\x1b[27m` : line);
    }
    if (items.length > rows) lines.push(`  (${selected + 1}/${items.length})`);
    lines.push(fit(options.help));
    erase();
    output.write(`${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  return new Promise((resolve) => {
    const done = (result: SelectResult<T>) => {
      stop();
      erase();
      resolve(result);
    };
    const stop = readKeys(input, (text, key) => {
      const items = visible();
      if (key.ctrl && (key.name === 'c' || key.name === 'd')) return done(undefined);
      switch (key.name) {
        case 'escape':
          return done(undefined);
        case 'return':
        case 'enter': {
          const item = items[selected];
          return item === undefined ? undefined : done({ value: item.value, action: 'enter' });
        }
        case 'up':
          selected = Math.max(0, selected - 1);
          return draw();
        case 'down':
          selected = Math.min(items.length - 1, selected + 1);
          return draw();
        case 'pageup':
          selected = Math.max(0, selected - rows);
          return draw();
        case 'pagedown':
          selected = Math.min(items.length - 1, selected + rows);
          return draw();
        case 'home':
          selected = 0;
          return draw();
        case 'end':
          selected = items.length - 1;
          return draw();
        case 'backspace':
          if (filtering && query !== '') {
            query = query.slice(0, -1);
            selected = 0;
            draw();
          }
          return;
        default:
          break;
      }
      if (!printable(text, key)) return;
      if (!filtering) {
        const item = items[selected];
        if (item !== undefined && options.actions?.includes(text)) done({ value: item.value, action: text });
        return;
      }
      query += text;
      selected = 0;
      draw();
    });
    draw();
  });
}
