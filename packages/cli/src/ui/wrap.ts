/**
 * Output that fits the terminal: lines wrapped at word boundaries (never inside a word that
 * fits on a line), continuation lines indented under the text they continue. Written to a
 * pipe or a file, output is left as it is: scripts read whole lines.
 *
 * Why wrap-ansi: it is what Ink and yargs wrap with — word boundaries, words longer than a
 * line cut hard, ANSI styles kept whole, and the width of wide (East Asian) characters.
 */
import wrapAnsi from 'wrap-ansi';

/** Fewer columns than this beside a term, and its text goes under it instead. */
const MIN_TEXT_COLUMNS = 24;
/** How far text put under its term is indented. */
const UNDER_INDENT = 4;

/** The width to fit output to: the columns of a terminal; undefined (do not wrap) for a pipe or a file. */
export function outputWidth(stream: { isTTY?: boolean; columns?: number }): number | undefined {
  return stream.isTTY === true ? (stream.columns ?? 80) : undefined;
}

/** `text` (one line, plain) wrapped to `columns`, hard only for a word longer than a line. */
function wrapWords(text: string, columns: number): string[] {
  return wrapAnsi(text, Math.max(1, columns), { hard: true, trim: true }).split('\n');
}

function fits(line: string, width: number): boolean {
  return wrapAnsi(line, width, { hard: false, trim: false }) === line;
}

function leadingSpaces(text: string): number {
  return text.length - text.trimStart().length;
}

/** `text` wrapped to `width`: its first line after `first`, the others after `rest`. */
function hanging(first: string, rest: string, whole: string, width: number): string[] {
  const text = whole.trim();
  const [head = ''] = wrapWords(text, width - first.length);
  const remainder = text.slice(head.length).trim();
  return [`${first}${head}`, ...(remainder === '' ? [] : wrapWords(remainder, width - rest.length).map((line) => `${rest}${line}`))];
}

/**
 * `text` beside `prefix`: its first line after `prefix`, the others under its start — or,
 * when fewer than 24 columns are left beside it, `prefix` alone and the text under it.
 *
 * @example
 * besidePrefix('  /help  ', 'show this help and more words', 20); // ['  /help', '      show this help and…', …]
 */
export function besidePrefix(prefix: string, text: string, width: number): string[] {
  if (width - prefix.length < MIN_TEXT_COLUMNS && prefix.trim() !== '') {
    const under = ' '.repeat(Math.max(0, Math.min(UNDER_INDENT + leadingSpaces(prefix), width - MIN_TEXT_COLUMNS)));
    return [prefix.trimEnd(), ...wrapWords(text, width - under.length).map((line) => `${under}${line}`)];
  }
  return hanging(prefix, ' '.repeat(prefix.length), text, width);
}

/** How {@link termRows} lays its rows out. */
export interface TermRowsOptions {
  /** Spaces before each term (default 2). */
  indent?: number;
  /** The widest the term column may be (default 40% of the width): a wider term has its text under it. */
  maxColumn?: number;
}

/**
 * Rows of a term and its text (`/help`'s commands, `/model`'s models): the text in a column
 * beside the terms, wrapped to `width`. A term wider than the column has its text on the
 * lines under it. Without a width, one line each, the column as wide as the widest term.
 */
export function termRows(rows: readonly (readonly [string, string])[], width: number | undefined, options: TermRowsOptions = {}): string[] {
  const indent = options.indent ?? 2;
  const margin = ' '.repeat(indent);
  const widest = Math.max(0, ...rows.map(([term]) => term.length));
  if (width === undefined) return rows.map(([term, text]) => `${margin}${term.padEnd(widest)}  ${text}`.trimEnd());
  const cap = options.maxColumn ?? Math.floor(width * 0.4);
  const column = Math.max(0, ...rows.map(([term]) => term.length).filter((length) => length <= cap));
  return rows.flatMap(([term, text]) => {
    if (text === '') return [`${margin}${term}`];
    if (term.length > column) return [`${margin}${term}`, ...besidePrefix(' '.repeat(indent + column + 2), text, width)];
    return besidePrefix(`${margin}${term.padEnd(column)}  `, text, width);
  });
}

/** One block of a help text: a paragraph, or an option with its description. */
interface TextItem {
  lines: string[];
  option: boolean;
}

/** An option of a help text: `  -p, --print …` or `      --list …` (2 to 6 spaces, then a dash). */
const OPTION_LINE = /^ {2,6}-/;

/**
 * Text written for a wide terminal (`--help`), fitted to `width`. A block that fits is left
 * as it was written; one that does not is wrapped again at word boundaries: a paragraph's
 * lines joined (lines indented deeper than its first continue it, indented so); an option's
 * description (`  -p, --print <prompt>   Run one turn…`, its continuation lines under its
 * first word) wrapped beside the option; `usage: <command> …` continued under its first
 * argument. Without a width, `text` as it is.
 */
export function fitText(text: string, width: number | undefined): string {
  if (width === undefined) return text;
  return textItems(text.split('\n'))
    .flatMap((item) => (item.lines.every((line) => fits(line, width)) ? item.lines : refit(item, width)))
    .join('\n');
}

/** `lines` as blank lines, paragraphs, and options with their descriptions. */
function textItems(lines: readonly string[]): TextItem[] {
  const items: TextItem[] = [];
  let current: TextItem | undefined;
  for (const line of lines) {
    if (line.trim() === '') {
      items.push({ lines: [line], option: false });
      current = undefined;
    } else if (current !== undefined && continues(current, line)) {
      current.lines.push(line);
    } else {
      current = { lines: [line], option: OPTION_LINE.test(line) };
      items.push(current);
    }
  }
  return items;
}

/** Whether `line` continues `item`: an option's description goes on at one indent; a paragraph at its own or deeper. */
function continues(item: TextItem, line: string): boolean {
  if (OPTION_LINE.test(line)) return false;
  const indent = leadingSpaces(line);
  const first = leadingSpaces(item.lines[0]!);
  const second = item.lines[1];
  if (item.option) return second === undefined ? indent > first : indent === leadingSpaces(second);
  return indent >= first;
}

/** An item that does not fit, wrapped again to `width`. */
function refit(item: TextItem, width: number): string[] {
  const [head, ...rest] = item.lines as [string, ...string[]];
  const words = (lines: readonly string[]) =>
    lines
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join(' ');
  if (!item.option) {
    const usage = /^usage: \S+ /.exec(head)?.[0];
    const first = usage ?? ' '.repeat(leadingSpaces(head));
    const indent = usage !== undefined ? usage.length : rest.length > 0 ? Math.max(leadingSpaces(head), leadingSpaces(rest[0]!)) : leadingSpaces(head);
    return hanging(first, ' '.repeat(indent), words([head.slice(first.length), ...rest]), width);
  }
  // The description starts where its continuation lines do, or after the option's first run of two spaces.
  const split = /^(\s*\S.*?)\s{2,}\S/.exec(head);
  const column = rest.length > 0 ? leadingSpaces(rest[0]!) : split !== null ? split[0].length - 1 : head.length;
  // The term ends at the column when a space comes right before it (`--rewind <prompt id> With…`), else at two spaces, else it is the whole line.
  const term = head.length > column && head[column - 1] === ' ' ? head.slice(0, column).trimEnd() : (split?.[1] ?? head.trimEnd());
  const text = words([head.slice(term.length), ...rest]);
  if (text === '') return [head];
  if (term.length + 1 <= column) return besidePrefix(term.padEnd(column), text, width);
  return [term, ...besidePrefix(' '.repeat(column), text, width)];
}

/**
 * `parts` joined by `separator` into lines of at most `width` (a part is moved whole to the
 * next line; a part longer than a line is wrapped at its words): a key help line such as
 * `↑↓ move · Enter: choose · Esc: cancel`.
 */
export function joinToWidth(parts: readonly string[], separator: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const part of parts) {
    const joined = line === '' ? part : `${line}${separator}${part}`;
    if (fits(joined, width)) line = joined;
    else {
      if (line !== '') lines.push(line);
      const pieces = wrapWords(part, width);
      lines.push(...pieces.slice(0, -1));
      line = pieces.at(-1) ?? '';
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
